import { describe, expect, it } from 'vitest';
import { workspaceImportPath } from './workspace-import.js';

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
