/** The link to a gateway in other resources' requests (a campaign's `aleg_gateway`). */
import { type Field, link } from '../../http/fields.ts';
import { findGateway } from './gateway.repository.ts';

/** Contract §8: any existing gateway may be used by any user. */
export function gatewayLink({ required = false } = {}): Field<number | null> {
  return link(['gateway'], async (ctx, id) => Boolean(await findGateway(ctx.db, id)), { required, nullable: !required });
}
