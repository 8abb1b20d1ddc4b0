/**
 * The console's pages: one entry each, in menu order. The menu and the routes are made from this
 * list (app.tsx), so adding a page is: write console/src/pages/<name>/index.tsx exporting a
 * default component, then give its entry `load: () => import('./pages/<name>/index.tsx')`.
 * An entry without `load` is listed honestly as not built yet (components/not-built.tsx).
 *
 * `path` is the page's root; the page's own <Routes> handle what is below it (`/campaigns/3`).
 * `api` is the resource the page is about, named on the not-built page.
 */
import type { ComponentType } from 'react';

export interface PageEntry {
  path: string;
  label: string;
  api?: string;
  /** Shown in the menu to admins only (the API answers 403 to anyone else). */
  adminOnly?: boolean;
  load?: () => Promise<{ default: ComponentType }>;
}

export const PAGES: PageEntry[] = [
  { path: '/', label: 'Dashboard', load: () => import('./pages/dashboard/index.tsx') },
  { path: '/phonebooks', label: 'Phonebooks', api: 'phonebook', load: () => import('./pages/phonebooks/index.tsx') },
  { path: '/dnc-lists', label: 'DNC lists', api: 'dnc', load: () => import('./pages/dnc-lists/index.tsx') },
  { path: '/audio', label: 'Audio', api: 'audio-files', load: () => import('./pages/audio/index.tsx') },
  { path: '/surveys', label: 'Surveys', api: 'survey-template', load: () => import('./pages/surveys/index.tsx') },
  { path: '/campaigns', label: 'Campaigns', api: 'campaigns', load: () => import('./pages/campaigns/index.tsx') },
  { path: '/sms-campaigns', label: 'SMS campaigns', api: 'sms-campaigns', load: () => import('./pages/sms-campaigns/index.tsx') },
  { path: '/gateways', label: 'Gateways', api: 'gateway', load: () => import('./pages/gateways/index.tsx') },
  { path: '/sms-gateways', label: 'SMS gateways', api: 'sms-gateway', load: () => import('./pages/sms-gateways/index.tsx') },
  { path: '/users', label: 'Users', api: 'accounts', adminOnly: true, load: () => import('./pages/users/index.tsx') },
  { path: '/payments', label: 'Payments', api: 'payment', adminOnly: true, load: () => import('./pages/payments/index.tsx') },
  { path: '/webhooks', label: 'Webhooks', api: 'webhook', load: () => import('./pages/webhooks/index.tsx') },
  { path: '/api-tokens', label: 'API tokens', api: 'tokens', load: () => import('./pages/api-tokens/index.tsx') },
];
