import { parse } from 'acorn';

/**
 * A script's ES module (types already stripped) as the source of an async function, so it can
 * run as a `vm.Script` in the job's context. `vm.SourceTextModule` would do it natively, but
 * Node never frees a context that evaluated one (about 160 KB per job), which a thread that
 * runs thousands of jobs cannot afford.
 *
 * The function is `(async function (__fm) { ...; return { <exports> } })`: static imports
 * become `await __fm.load(specifier)` at their place, `import(...)` becomes `__fm.load(...)`,
 * `import.meta` becomes `__fm.meta`, and `export` keywords go, their names collected into the
 * returned object. Lines keep their numbers, so stack traces point into the script as written.
 */
export class ModuleSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SyntaxError';
  }
}

interface AstNode {
  readonly type: string;
  readonly start: number;
  readonly end: number;
  readonly [key: string]: unknown;
}

interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

const PREFIX = '(async function (__fm) {"use strict";';

export function moduleToFunctionSource(code: string): string {
  const program = parseModule(code);
  const edits: Edit[] = [];
  const exported = new Map<string, string>();
  let imports = 0;
  const keepLines = (start: number, end: number): string => '\n'.repeat(countNewlines(code, start, end));
  const loadOf = (source: AstNode): string => {
    const name = `__fm_import${imports++}`;
    return `const ${name} = await __fm.load(${code.slice(source.start, source.end)});`;
  };

  for (const statement of program.body as AstNode[]) {
    switch (statement.type) {
      case 'ImportDeclaration': {
        const source = statement.source as AstNode;
        const binding = `__fm_import${imports}`;
        const lines = [loadOf(source)];
        for (const specifier of statement.specifiers as AstNode[]) {
          const local = (specifier.local as AstNode & { name: string }).name;
          if (specifier.type === 'ImportDefaultSpecifier') lines.push(`const ${local} = ${binding}.default;`);
          else if (specifier.type === 'ImportNamespaceSpecifier') lines.push(`const ${local} = ${binding};`);
          else
            lines.push(
              `const ${local} = ${binding}[${JSON.stringify(moduleName(specifier.imported as AstNode))}];`,
            );
        }
        edits.push({
          start: statement.start,
          end: statement.end,
          text: lines.join(' ') + keepLines(statement.start, statement.end),
        });
        break;
      }
      case 'ExportNamedDeclaration': {
        const declaration = statement.declaration as AstNode | null;
        if (declaration) {
          edits.push({ start: statement.start, end: declaration.start, text: '' });
          for (const name of declaredNames(declaration)) exported.set(name, name);
          break;
        }
        const source = statement.source as AstNode | null;
        const binding = source ? `__fm_import${imports}` : undefined;
        const text = source ? loadOf(source) : '';
        for (const specifier of statement.specifiers as AstNode[]) {
          const local = moduleName(specifier.local as AstNode);
          const name = moduleName(specifier.exported as AstNode);
          exported.set(name, binding ? `${binding}[${JSON.stringify(local)}]` : local);
        }
        edits.push({
          start: statement.start,
          end: statement.end,
          text: text + keepLines(statement.start, statement.end),
        });
        break;
      }
      case 'ExportDefaultDeclaration': {
        const declaration = statement.declaration as AstNode & { id?: { name: string } | null };
        const named =
          (declaration.type === 'FunctionDeclaration' || declaration.type === 'ClassDeclaration') &&
          declaration.id;
        if (named) {
          edits.push({ start: statement.start, end: declaration.start, text: '' });
          exported.set('default', declaration.id!.name);
        } else {
          edits.push({ start: statement.start, end: declaration.start, text: 'const __fm_default = ' });
          exported.set('default', '__fm_default');
        }
        break;
      }
      case 'ExportAllDeclaration': {
        const source = statement.source as AstNode;
        const binding = `__fm_import${imports}`;
        const text = loadOf(source);
        const name = statement.exported ? moduleName(statement.exported as AstNode) : undefined;
        if (name !== undefined) exported.set(name, binding);
        else exported.set(`...${binding}`, binding);
        edits.push({
          start: statement.start,
          end: statement.end,
          text: text + keepLines(statement.start, statement.end),
        });
        break;
      }
      default:
        break;
    }
  }
  walk(program, (node) => {
    if (node.type === 'ImportExpression') {
      edits.push({ start: node.start, end: node.start + 'import'.length, text: '__fm.load' });
    } else if (node.type === 'MetaProperty' && (node.meta as { name?: string }).name === 'import') {
      edits.push({ start: node.start, end: node.end, text: '__fm.meta' });
    }
  });

  const returned = [...exported]
    .map(([name, local]) => (name.startsWith('...') ? `...${local}` : `${JSON.stringify(name)}: ${local}`))
    .join(', ');
  return `${PREFIX}${applyEdits(code, edits)}\n;return { ${returned} };\n})`;
}

/** The modules a module (types already stripped) imports by a literal name: statically, re-exported, or `import('...')`. */
export function moduleImports(code: string): string[] {
  const program = parseModule(code);
  const found = new Set<string>();
  walk(program, (node) => {
    const source =
      node.type === 'ImportDeclaration' ||
      node.type === 'ExportNamedDeclaration' ||
      node.type === 'ExportAllDeclaration' ||
      node.type === 'ImportExpression'
        ? (node.source as AstNode | null | undefined)
        : undefined;
    if (source?.type === 'Literal' && typeof source.value === 'string') found.add(source.value);
  });
  return [...found];
}

function parseModule(code: string): AstNode {
  try {
    return parse(code, {
      ecmaVersion: 'latest',
      sourceType: 'module',
      locations: false,
    }) as unknown as AstNode;
  } catch (error) {
    throw new ModuleSyntaxError((error as Error).message);
  }
}

function declaredNames(declaration: AstNode): string[] {
  if (declaration.type === 'VariableDeclaration') {
    return (declaration.declarations as AstNode[]).flatMap((declarator) =>
      patternNames(declarator.id as AstNode),
    );
  }
  const id = declaration.id as { name: string } | null | undefined;
  return id ? [id.name] : [];
}

function patternNames(pattern: AstNode): string[] {
  switch (pattern.type) {
    case 'Identifier':
      return [(pattern as AstNode & { name: string }).name];
    case 'ObjectPattern':
      return (pattern.properties as AstNode[]).flatMap((property) =>
        patternNames((property.type === 'RestElement' ? property.argument : property.value) as AstNode),
      );
    case 'ArrayPattern':
      return (pattern.elements as (AstNode | null)[]).flatMap((element) =>
        element ? patternNames(element) : [],
      );
    case 'RestElement':
      return patternNames(pattern.argument as AstNode);
    case 'AssignmentPattern':
      return patternNames(pattern.left as AstNode);
    default:
      return [];
  }
}

/** `name` or `"string name"` of an import or export specifier. */
function moduleName(node: AstNode): string {
  return node.type === 'Identifier' ? (node as AstNode & { name: string }).name : String(node.value);
}

function walk(node: AstNode, visit: (node: AstNode) => void): void {
  visit(node);
  for (const key of Object.keys(node)) {
    const child = node[key];
    if (Array.isArray(child)) {
      for (const item of child) if (isNode(item)) walk(item, visit);
    } else if (isNode(child)) {
      walk(child, visit);
    }
  }
}

function isNode(value: unknown): value is AstNode {
  return (
    typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
  );
}

function applyEdits(code: string, edits: readonly Edit[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const edit of sorted) {
    out += code.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + code.slice(at);
}

function countNewlines(code: string, start: number, end: number): number {
  let count = 0;
  for (let i = start; i < end; i++) if (code.charCodeAt(i) === 10) count += 1;
  return count;
}
