#!/usr/bin/env node
// The `flowmesh` bin is this committed file rather than dist/main.js: npm links bins at
// install time, before a build exists, and a file tsc creates later is not executable.
const entry = new URL('../dist/main.js', import.meta.url);
try {
  await import(entry.href);
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes(entry.pathname)) {
    process.stderr.write('flowmesh: the CLI is not built yet; run `npm run build` first\n');
    process.exit(1);
  }
  throw error;
}
