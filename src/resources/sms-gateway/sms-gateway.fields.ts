/** The link to an SMS gateway in other resources' requests (an SMS campaign's `sms_gateway`). */
import { type Field, link } from '../../http/fields.ts';
import { findSmsGateway } from './sms-gateway.repository.ts';

/** Contract §8: any existing SMS gateway may be used by any user. */
export function smsGatewayLink({ required = false } = {}): Field<number | null> {
  return link(['sms-gateway'], async (ctx, id) => Boolean(await findSmsGateway(ctx.db, id)), { required, nullable: !required });
}
