/**
 * The list envelope of contract §2: {count, next, previous, results}, 10 per page, `page` and
 * `page_size` (≤ 1000) query parameters, absolute next/previous links that keep the other
 * query parameters, and 404 "Invalid page." for a page that is not a positive integer (up to
 * 2^31 - 1) or is past the end.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { notFound } from './errors.ts';
import { baseUrl } from './links.ts';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 1000;
export const MAX_PAGE = 2_147_483_647;

export interface Envelope<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export interface PageRequest {
  page: number;
  limit: number;
  offset: number;
}

/** Reads `page` and `page_size`; a bad page is 404 "Invalid page." as DRF answers. */
export function readPage(query: Record<string, unknown>): PageRequest {
  const rawPage = query.page;
  let page = 1;
  if (rawPage !== undefined && rawPage !== '') {
    const text = String(rawPage);
    // Past MAX_PAGE no list has rows; the offset of a page beyond it overflowed the query (a 500).
    if (!/^\d{1,10}$/.test(text) || Number(text) < 1 || Number(text) > MAX_PAGE) throw notFound('Invalid page.');
    page = Number(text);
  }
  let limit = DEFAULT_PAGE_SIZE;
  const rawSize = query.page_size;
  if (rawSize !== undefined && /^\d+$/.test(String(rawSize)) && Number(rawSize) > 0) {
    limit = Math.min(Number(rawSize), MAX_PAGE_SIZE);
  }
  return { page, limit, offset: (page - 1) * limit };
}

/** The absolute URL of this request with `page` set to `page` (removed for page 1). */
export function pageUrl(request: FastifyRequest, page: number): string {
  const url = new URL(request.url, baseUrl(request));
  if (page <= 1) url.searchParams.delete('page');
  else url.searchParams.set('page', String(page));
  return `${baseUrl(request)}${url.pathname}${url.search}`;
}

/**
 * Builds the envelope: `count` total rows, `fetch(limit, offset)` the page's rows, `present`
 * each row to JSON. Reading past the end (except page 1 of an empty list) is 404.
 */
export async function paginate<Row, Out>(
  request: FastifyRequest,
  count: () => Promise<number>,
  fetch: (limit: number, offset: number) => Promise<Row[]>,
  present: (row: Row) => Out,
): Promise<Envelope<Out>> {
  const { page, limit, offset } = readPage(request.query as Record<string, unknown>);
  const total = await count();
  if (page > 1 && offset >= total) throw notFound('Invalid page.');
  const rows = total === 0 ? [] : await fetch(limit, offset);
  return {
    count: total,
    next: offset + limit < total ? pageUrl(request, page + 1) : null,
    previous: page > 1 ? pageUrl(request, page - 1) : null,
    results: rows.map(present),
  };
}

/** The response schema of a list of `record`s (for serialization and the OpenAPI document). */
export function envelopeOf(record: TSchema) {
  return Type.Object({
    count: Type.Integer(),
    next: Type.Union([Type.String(), Type.Null()]),
    previous: Type.Union([Type.String(), Type.Null()]),
    results: Type.Array(record),
  });
}
