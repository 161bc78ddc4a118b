import { describe, expect, it } from 'vitest';
import { lockedScriptsOf, parsePythonLockText, pythonLockText } from './lock-text.js';
import { pythonWorkspaceImports, workspaceImportPath } from './workspace-import.js';

describe('workspaceImportPath', () => {
  it('reads absolute imports as they are and relative ones from the folder given', () => {
    expect(workspaceImportPath('/f/lib/a', 'u/bob')).toBe('f/lib/a');
    expect(workspaceImportPath('./a', 'f/lib')).toBe('f/lib/a');
    expect(workspaceImportPath('../other/a.ts', 'f/lib/sub')).toBe('f/lib/other/a');
    expect(workspaceImportPath('./helper', 'f/app/main')).toBe('f/app/main/helper');
  });

  it('refuses what leaves the workspace or is not a path', () => {
    expect(workspaceImportPath('../../../etc/passwd', 'f/lib')).toBeUndefined();
    expect(workspaceImportPath('/f/lib', 'u/bob')).toBeUndefined();
    expect(workspaceImportPath('ms', 'f/lib')).toBeUndefined();
    expect(workspaceImportPath('https://x.test/a', 'f/lib')).toBeUndefined();
  });
});

describe('pythonWorkspaceImports', () => {
  it("reads Windmill's module names as specifiers, relative ones from the importer's package", () => {
    const code = [
      'import os, f.lib.a',
      'from f.lib.b import go',
      'from f.lib import c, d as dd',
      'from .sibling import x',
      'from . import (e, g)',
      '    from ..other.h import y',
      'import requests',
      'from fastapi import app',
    ].join('\n');
    expect(pythonWorkspaceImports(code)).toEqual([
      '/f/lib/a',
      '/f/lib/b',
      '/f/lib/c',
      '/f/lib/d',
      './sibling',
      './e',
      './g',
      '../other/h',
    ]);
    expect(workspaceImportPath('../other/h', 'f/lib')).toBe('f/other/h');
  });
});

describe('python lock text', () => {
  it('names the scripts a lock was made against as comments, read back by lockedScriptsOf', () => {
    const text = pythonLockText({
      python: '3.11',
      pins: { requests: '2.31.0' },
      scripts: { 'f/lib/a': 'abc' },
    });
    expect(text.split('\n')).toEqual(['# py: 3.11', '# script: f/lib/a abc', 'requests==2.31.0']);
    expect(parsePythonLockText(text)).toEqual({
      python: '3.11',
      pins: { requests: '2.31.0' },
      scripts: { 'f/lib/a': 'abc' },
    });
    expect(lockedScriptsOf(text)).toEqual({ 'f/lib/a': 'abc' });
    expect(lockedScriptsOf('requests==2.31.0')).toEqual({});
  });
});
