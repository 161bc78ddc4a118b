import { isRecord } from '../flow-walk.js';
import { type FlowIssue, type FlowRule, issueAt, moduleValue } from './flow-rule.js';

const LOOPS = new Set(['forloopflow', 'whileloopflow']);

/** stop_after_all_iters_if belongs to loops; a stop condition either skips or raises an error, not both. */
export const stopConditionsRule: FlowRule = ({ modules }) => {
  const issues: FlowIssue[] = [];
  for (const { module, path, role } of modules) {
    if (role === 'tool') continue;
    const type = moduleValue(module).type;
    if (module.stop_after_all_iters_if !== undefined && typeof type === 'string' && !LOOPS.has(type))
      issues.push(
        issueAt(
          [...path, 'stop_after_all_iters_if'],
          `only a forloopflow or whileloopflow stops after all iterations; this module is of type ${type}`,
        ),
      );
    for (const key of ['stop_after_if', 'stop_after_all_iters_if'] as const) {
      const condition = module[key];
      if (
        isRecord(condition) &&
        condition.skip_if_stopped === true &&
        typeof condition.error_message === 'string'
      )
        issues.push(
          issueAt(
            [...path, key, 'error_message'],
            'cannot be set with skip_if_stopped: a stopped flow either skips the following steps or raises this error',
          ),
        );
    }
  }
  return issues;
};
