import { Type } from '@sinclair/typebox';
import { link, text } from '../../http/fields.ts';
import { findSectionTemplate } from '../section-template/section-template.repository.ts';

const sectionLink = (opts: { required?: boolean; nullable?: boolean; description?: string }) =>
  link(['section-template'], async (ctx, id) => Boolean(await findSectionTemplate(ctx.db, ctx.user, id)), opts);

/** Request fields (contract §8: `section` and `keys` required). */
export const branchingTemplateFields = {
  keys: text({
    required: true,
    max: 150,
    blank: false,
    description: 'a digit or digits ("1", "42"), several answers separated by commas ("1,2"), "any", "invalid", "timeout", or "0" (next, on a section without input)',
  }),
  section: sectionLink({ required: true }),
  goto: sectionLink({ nullable: true, description: 'a section of the same survey; null = hang up' }),
};

export const BranchingTemplateRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  keys: Type.String(),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
  section: Type.String({ format: 'uri' }),
  goto: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
});
