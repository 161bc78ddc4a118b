import { isRecord, type ModuleRole } from '../flow-walk.js';
import { type FlowIssue, type FlowRule, issueAt, moduleValue } from './flow-rule.js';

const SPECIAL: Partial<Record<ModuleRole, { id: string; name: string }>> = {
  failure: { id: 'failure', name: 'failure module' },
  preprocessor: { id: 'preprocessor', name: 'preprocessor module' },
};

const STEP_RESULTS = /\bresults\b/;

/**
 * The failure and preprocessor modules have fixed ids and run only scripts; the preprocessor
 * runs before every step, so it cannot read step results.
 */
export const specialModulesRule: FlowRule = ({ modules }) => {
  const issues: FlowIssue[] = [];
  for (const { module, path, role } of modules) {
    const special = SPECIAL[role];
    if (!special) continue;
    if (typeof module.id === 'string' && module.id !== special.id)
      issues.push(
        issueAt([...path, 'id'], `the ${special.name} must have id "${special.id}", got "${module.id}"`),
      );
    const value = moduleValue(module);
    if (typeof value.type === 'string' && value.type !== 'script' && value.type !== 'rawscript')
      issues.push(
        issueAt(
          [...path, 'value', 'type'],
          `the ${special.name} must be a script or rawscript, got "${value.type}"`,
        ),
      );
    if (role === 'preprocessor' && isRecord(value.input_transforms)) {
      for (const [name, transform] of Object.entries(value.input_transforms)) {
        if (isRecord(transform) && transform.type === 'javascript' && typeof transform.expr === 'string')
          if (STEP_RESULTS.test(transform.expr))
            issues.push(
              issueAt(
                [...path, 'value', 'input_transforms', name, 'expr'],
                'the preprocessor runs before every step and cannot reference step results',
              ),
            );
      }
    }
  }
  return issues;
};
