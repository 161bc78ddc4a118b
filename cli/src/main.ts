#!/usr/bin/env node
import { createRequire } from 'node:module';
import { CliConfigError } from './cli.config.js';
import { createProgram } from './program.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

try {
  await createProgram(version).parseAsync(process.argv);
} catch (error) {
  // A configuration mistake is the user's to fix: one line, no stack trace.
  if (error instanceof CliConfigError) {
    process.stderr.write(`flowmesh: ${error.message}\n`);
    process.exitCode = 78;
  } else {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`flowmesh: ${message}\n`);
    process.exitCode = 1;
  }
}
