/**
 * An SMS campaign's `text_message` filled in for one subscriber: `{full_name}` and the keys of
 * the contact's additional_vars (`{debt}`). The renderer is shared with spoken scripts
 * (campaign/placeholders.ts).
 */
export { fillPlaceholders as renderSms } from '../../campaign/placeholders.ts';
