#!/usr/bin/env node
// The `flowmesh` bin is this committed file rather than dist/main.js: npm links bins at
// install time, before a build exists, and a file tsc creates later is not executable.
// An older system Node fails deep inside a dependency with a stack trace: say what to do instead.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `flowmesh: needs Node 24 (this is Node ${process.versions.node}); run it as \`npx flowmesh\` in the project, which uses the project's Node 24\n`,
  );
  process.exit(1);
}
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
