/**
 * How an OpenFlow expression becomes code for the sandbox. Windmill accepts both a bare
 * expression (`flow_input.x + 1`) and a function body (`const a = 1; return a + flow_input.x`),
 * so the expression form is tried first and the body form only when that does not compile.
 * `await` needs an async wrapper; the others stay synchronous, which saves a job-queue drain.
 */
export type ExpressionForm = 'expression' | 'body';

const AWAIT = /\bawait\b/;

export function wrapExpression(expr: string, form: ExpressionForm): string {
  const asyncKeyword = AWAIT.test(expr) ? 'async ' : '';
  // The newlines keep a trailing `// comment` from swallowing the closing parenthesis.
  const body = form === 'expression' ? `return (\n${expr}\n);` : `\n${expr}\n`;
  return `(${asyncKeyword}function () {\n${body}\n}).call(undefined)`;
}
