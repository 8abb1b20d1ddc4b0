import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { BranchingTemplateRow } from './branching-template.repository.ts';
import type { BranchingTemplateRecord } from './branching-template.schema.ts';

export function presentBranchingTemplate(request: FastifyRequest, row: BranchingTemplateRow): Static<typeof BranchingTemplateRecord> {
  const link = linker(request);
  return {
    id: row.id,
    url: link('branching-template', row.id) as string,
    keys: row.keys,
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
    section: link('section-template', row.section_id) as string,
    goto: link('section-template', row.goto_id),
  };
}
