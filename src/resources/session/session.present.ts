import type { Static } from '@sinclair/typebox';
import { isoTime } from '../../http/present.ts';
import type { SessionRecord } from './session.schema.ts';

export interface SessionView {
  username: string;
  is_admin: boolean;
  csrf_token: string;
  /** timestamptz text or an ISO string */
  expires: string;
}

/** A session as its own browser sees it; never its cookie's secret (that is only in Set-Cookie). */
export function presentSession(session: SessionView): Static<typeof SessionRecord> {
  return {
    username: session.username,
    is_admin: session.is_admin,
    csrf_token: session.csrf_token,
    expires: isoTime(session.expires) as string,
  };
}
