/** A campaign's pace: `frequency` is calls or messages per minute. */

/** The largest frequency; a campaign at it is sent with no pace limit. */
export const UNPACED_FREQUENCY = 1_000_000;
