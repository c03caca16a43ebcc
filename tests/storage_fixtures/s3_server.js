#!/usr/bin/env node
// s3_server.js - the object-store fixture's server: s3rver (an S3-compatible
// server keeping objects in a folder) on 127.0.0.1, with two additions the
// tests need:
//   * counters of what it served, read over HTTP at GET /_feedrate/stats
//     (JSON: requests, per-method counts, object GETs and the bytes they
//     returned) and zeroed by POST /_feedrate/reset; "_feedrate" is not a
//     valid bucket name, so no S3 request can reach these paths;
//   * --first-byte-ms N: every object GET waits N ms before it is served,
//     standing in for an object store's time to first byte (the reference
//     figure is 100-200 ms for S3; the default here is 0).
// Usage: node s3_server.js --dir DIR --bucket NAME --port-file FILE
//                          [--port N] [--first-byte-ms N] [--tag TEXT]
// It writes the port it listens on into FILE once it accepts requests, and
// exits on SIGTERM/SIGINT. --tag is not used: it marks the process so the
// fixture scripts can recognise a stale one in /proc/PID/cmdline.
'use strict';

const fs = require('fs');
const http = require('http');
const path = require('path');

const S3rver = require(path.join(__dirname, 'node_modules', 's3rver'));

function parseArgs(argv) {
  const o = { port: 0, firstByteMs: 0 };
  for (let i = 2; i < argv.length; i += 2) {
    const k = argv[i], v = argv[i + 1];
    if (v === undefined) throw new Error(`option ${k} needs a value`);
    if (k === '--dir') o.dir = v;
    else if (k === '--bucket') o.bucket = v;
    else if (k === '--port-file') o.portFile = v;
    else if (k === '--port') o.port = Number(v);
    else if (k === '--first-byte-ms') o.firstByteMs = Number(v);
    else if (k === '--tag') o.tag = v;
    else throw new Error(`unknown option ${k}`);
  }
  if (!o.dir || !o.bucket || !o.portFile)
    throw new Error('--dir, --bucket and --port-file are required');
  if (!(o.firstByteMs >= 0)) throw new Error('bad --first-byte-ms');
  return o;
}

function zeroStats() {
  return { requests: 0, methods: {}, object_gets: 0, object_get_bytes: 0,
           errors: 0 };
}

async function main() {
  const o = parseArgs(process.argv);
  const s3 = new S3rver({ directory: o.dir, silent: true,
                          configureBuckets: [{ name: o.bucket }] });
  await s3.configureBuckets();
  const handle = s3.callback();
  let stats = zeroStats();

  const server = http.createServer((req, res) => {
    if (req.url === '/_feedrate/stats') {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(stats) + '\n');
      return;
    }
    if (req.url === '/_feedrate/reset' && req.method === 'POST') {
      stats = zeroStats();
      res.end('ok\n');
      return;
    }
    stats.requests++;
    stats.methods[req.method] = (stats.methods[req.method] || 0) + 1;
    // an object GET: /bucket/key (path-style), not a listing (/bucket?...)
    const u = new URL(req.url, 'http://127.0.0.1');
    const parts = u.pathname.split('/').filter(Boolean);
    const objectGet = req.method === 'GET' && parts.length >= 2 &&
                      !u.pathname.endsWith('/');
    if (objectGet) {
      res.on('finish', () => {
        if (res.statusCode >= 200 && res.statusCode < 300) {
          stats.object_gets++;
          stats.object_get_bytes +=
            Number(res.getHeader('content-length')) || 0;
        } else {
          stats.errors++;
        }
      });
    }
    if (objectGet && o.firstByteMs > 0)
      setTimeout(() => handle(req, res), o.firstByteMs);
    else
      handle(req, res);
  });
  server.keepAliveTimeout = 60000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, '127.0.0.1', resolve);
  });
  const tmp = o.portFile + '.tmp';
  fs.writeFileSync(tmp, String(server.address().port) + '\n');
  fs.renameSync(tmp, o.portFile);
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();   // s3fs keeps connections alive
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err) => {
  process.stderr.write(`s3_server.js: ${err.message}\n`);
  process.exit(1);
});
