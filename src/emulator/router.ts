import type { RouteDefinition, RouteMethod } from './handler.js';

export type RouteResolution =
  | {
      readonly kind: 'match';
      readonly route: RouteDefinition;
      readonly params: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'method_not_allowed'; readonly template: string; readonly allow: readonly RouteMethod[] }
  | { readonly kind: 'not_found' };

interface CompiledTemplate {
  readonly template: string;
  readonly segments: readonly string[];
  readonly routes: RouteDefinition[];
}

function splitPath(path: string): string[] | null {
  try {
    return path
      .split('/')
      .filter((segment) => segment !== '')
      .map((segment) => decodeURIComponent(segment));
  } catch {
    return null;
  }
}

function matchSegments(template: readonly string[], path: readonly string[]): Record<string, string> | null {
  if (template.length !== path.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i += 1) {
    const expected = template[i] as string;
    const actual = path[i] as string;
    if (expected.startsWith('{') && expected.endsWith('}')) params[expected.slice(1, -1)] = actual;
    else if (expected !== actual) return null;
  }
  return params;
}

/** A tiny router: path templates with `{param}` segments; 405 lists the methods a path allows. */
export function createRouter(
  routes: readonly RouteDefinition[],
): (method: string, path: string) => RouteResolution {
  const templates: CompiledTemplate[] = [];
  for (const route of routes) {
    let compiled = templates.find((t) => t.template === route.template);
    if (!compiled) {
      compiled = { template: route.template, segments: splitPath(route.template) ?? [], routes: [] };
      templates.push(compiled);
    }
    compiled.routes.push(route);
  }
  return (method, path) => {
    const segments = splitPath(path);
    if (segments === null) return { kind: 'not_found' };
    for (const compiled of templates) {
      const params = matchSegments(compiled.segments, segments);
      if (!params) continue;
      const route = compiled.routes.find((r) => r.method === method);
      if (route) return { kind: 'match', route, params };
      return {
        kind: 'method_not_allowed',
        template: compiled.template,
        allow: compiled.routes.map((r) => r.method),
      };
    }
    return { kind: 'not_found' };
  };
}
