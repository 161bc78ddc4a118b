import type { Script, ScriptLanguage } from '@flowmesh/contracts';
import type { ScriptVersionEntity } from './script-version.entity.js';
import type { ScriptEntity } from './script.entity.js';
import type { ListedScriptRow } from './script.repository.js';

export function toScript(script: ScriptEntity, version: ScriptVersionEntity): Script {
  return {
    workspace_id: version.workspaceId,
    path: version.path,
    hash: version.hash,
    parent_hash: version.parentHash,
    language: version.language as ScriptLanguage,
    content: version.content,
    lock: version.lock,
    schema: version.schema,
    summary: script.summary,
    description: script.description,
    is_current: script.currentHash === version.hash,
    created_by: version.createdBy,
    created_at: version.createdAt.toISOString(),
  };
}

export function toListedScript({
  script,
  current,
}: ListedScriptRow): Omit<Script, 'content' | 'lock' | 'schema'> {
  return {
    workspace_id: script.workspaceId,
    path: script.path,
    hash: current.hash,
    parent_hash: current.parentHash,
    language: current.language as ScriptLanguage,
    summary: script.summary,
    description: script.description,
    is_current: true,
    created_by: current.createdBy,
    created_at: current.createdAt.toISOString(),
  };
}
