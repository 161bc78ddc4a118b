/**
 * Which route answers a request path, as Windmill's router (matchit) does: a path is its
 * segments; a literal segment wins over a parameter (`users/me` before `users/:id`), and a
 * parameter matches any one segment. The routes of one path are told apart by method: a path
 * some route answers, but not with this method, is a 405 naming the methods that would work.
 */

export interface MatchableRoute {
  /** Segments as served: the workspace first for a workspaced route, then the route path's. */
  readonly segments: readonly string[];
  readonly method: string;
}

export type RouteMatch<R> =
  | { readonly kind: 'found'; readonly route: R; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: 'method_not_allowed'; readonly allow: readonly string[] }
  | { readonly kind: 'not_found' };

interface Node<R> {
  readonly literals: Map<string, Node<R>>;
  param?: Node<R>;
  /** Routes ending here, by method. */
  readonly routes: Map<string, R>;
}

const node = <R>(): Node<R> => ({ literals: new Map(), routes: new Map() });

/** An immutable table of routes, built once per change of the route set. */
export class RouteMatcher<R extends MatchableRoute> {
  private readonly root: Node<R> = node();
  /** Each route's parameter names, in the order of their segments. */
  private readonly paramNames = new Map<R, string[]>();

  /** `routes` in any order; a second route of one path and method is ignored (the store forbids it). */
  constructor(routes: Iterable<R>) {
    for (const route of routes) {
      let at = this.root;
      const names: string[] = [];
      for (const segment of route.segments) {
        if (segment.startsWith(':')) {
          names.push(segment.slice(1));
          at = at.param ??= node();
        } else {
          let next = at.literals.get(segment);
          if (!next) at.literals.set(segment, (next = node()));
          at = next;
        }
      }
      if (!at.routes.has(route.method)) {
        at.routes.set(route.method, route);
        this.paramNames.set(route, names);
      }
    }
  }

  match(method: string, segments: readonly string[]): RouteMatch<R> {
    const candidates: { node: Node<R>; values: string[] }[] = [];
    this.collect(this.root, segments, 0, [], candidates);
    for (const candidate of candidates) {
      const route = candidate.node.routes.get(method);
      if (!route) continue;
      const names = this.paramNames.get(route) ?? [];
      return {
        kind: 'found',
        route,
        params: Object.fromEntries(names.map((name, index) => [name, candidate.values[index] ?? ''])),
      };
    }
    if (candidates.length === 0) return { kind: 'not_found' };
    const allow = new Set<string>();
    for (const candidate of candidates) for (const other of candidate.node.routes.keys()) allow.add(other);
    return { kind: 'method_not_allowed', allow: [...allow].sort() };
  }

  /** Every node that ends a route at `segments`, most specific first (literals before parameters). */
  private collect(
    at: Node<R>,
    segments: readonly string[],
    index: number,
    values: string[],
    found: { node: Node<R>; values: string[] }[],
  ): void {
    if (index === segments.length) {
      if (at.routes.size > 0) found.push({ node: at, values: [...values] });
      return;
    }
    const segment = segments[index];
    const literal = at.literals.get(segment);
    if (literal) this.collect(literal, segments, index + 1, values, found);
    if (at.param && segment !== '') {
      values.push(segment);
      this.collect(at.param, segments, index + 1, values, found);
      values.pop();
    }
  }
}
