/**
 * POST /rest-api/subscriber/ (Newfies' view_subscriber.py): a contact's fields as Newfies' client
 * sends them. Our contacts keep a number, a full name and additional_vars: first and last name
 * make the full name, and Newfies' other contact fields (email, address …) are kept in
 * additional_vars under their own names, where messages and API sections can use them.
 */
import { Type } from '@sinclair/typebox';
import { jsonObject, phone, text } from '../../http/fields.ts';

export const subscriberFields = {
  contact: phone({ required: true }),
  first_name: text({ max: 100 }),
  last_name: text({ max: 100 }),
  email: text({ max: 100 }),
  description: text({ max: 2000 }),
  address: text({ max: 100 }),
  city: text({ max: 100 }),
  state: text({ max: 100 }),
  country: text({ max: 100 }),
  unit_number: text({ max: 100 }),
  // contract §1: an object, or a string holding a JSON object.
  additional_vars: jsonObject({ nullable: true }),
};

/** The fields copied into additional_vars (given ones only). */
export const EXTRA_FIELDS = ['email', 'description', 'address', 'city', 'state', 'country', 'unit_number'] as const;

export const SubscriberBody = Type.Object({
  phonebook_id: Type.Union([Type.Integer(), Type.String()], { description: "One of the caller's phonebooks" }),
  ...Object.fromEntries(Object.entries(subscriberFields).map(([name, field]) => [name, field.required ? field.schema : Type.Optional(field.schema)])),
});

export const SubscriberAnswer = Type.Object({ status: Type.String({ examples: ['Contact created'] }) });
