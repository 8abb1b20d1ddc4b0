/**
 * Hyperlinks (contract §1). Out: absolute URLs built from the request (Host, or the trusted
 * proxy's X-Forwarded-Proto/Host). In: an absolute URL, a path, or a bare id; "" and null mean
 * "none" on a nullable link.
 */
import type { FastifyRequest } from 'fastify';

export const API_PREFIX = '/rest-api';

/** `https://host:port` of the request, honouring a trusted proxy (Fastify's trustProxy). */
export function baseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/** The absolute URL of a record: `<base>/rest-api/<resource>/<id>/`. */
export function recordUrl(request: FastifyRequest, resource: string, id: number): string {
  return `${baseUrl(request)}${API_PREFIX}/${resource}/${id}/`;
}

/** The absolute URL of a resource's list: `<base>/rest-api/<resource>/`. */
export function listUrl(request: FastifyRequest, resource: string): string {
  return `${baseUrl(request)}${API_PREFIX}/${resource}/`;
}

/** A function row id → absolute URL, for presenters that link many rows. */
export function linker(request: FastifyRequest): (resource: string, id: number | null | undefined) => string | null {
  const base = `${baseUrl(request)}${API_PREFIX}/`;
  return (resource, id) => (id === null || id === undefined ? null : `${base}${resource}/${id}/`);
}

export const LinkMessages = {
  incorrectMatch: 'Invalid hyperlink - Incorrect URL match.',
  doesNotExist: 'Invalid hyperlink - Object does not exist.',
  incorrectType: 'Incorrect type. Expected URL string, received ',
} as const;

export type LinkParse = { id: number } | { none: true } | { error: string };

/**
 * Reads a link given in a request. `resources` are the path names that designate the target
 * (e.g. ['dnc', 'dnc-list']). Existence and ownership are the caller's to check.
 */
export function parseLink(value: unknown, resources: readonly string[]): LinkParse {
  if (value === null || value === '') return { none: true };
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value > 0 ? { id: value } : { error: LinkMessages.doesNotExist };
  }
  if (typeof value !== 'string') return { error: `${LinkMessages.incorrectType}${typeName(value)}.` };
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const id = Number(text);
    return Number.isSafeInteger(id) && id > 0 ? { id } : { error: LinkMessages.doesNotExist };
  }
  let pathname = text;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    try {
      pathname = new URL(text).pathname;
    } catch {
      return { error: LinkMessages.incorrectMatch };
    }
  }
  const m = /^\/rest-api\/([\w-]+)\/(\d+)\/?$/.exec(pathname);
  if (!m || !resources.includes(m[1])) return { error: LinkMessages.incorrectMatch };
  const id = Number(m[2]);
  return Number.isSafeInteger(id) && id > 0 ? { id } : { error: LinkMessages.doesNotExist };
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'dict' : typeof value;
}
