/** Phonebook and contact records as the API answers them (src/resources/phonebook, contact). */
export interface Phonebook {
  id: number;
  url: string;
  name: string;
  description: string;
  user: string;
  created_date: string;
  updated_date: string;
}

export interface Contact {
  id: number;
  url: string;
  phonebook: string;
  contact: string;
  full_name: string;
  /** JSON text of an object (contract §1). */
  additional_vars: string;
  /** 1 active, 0 inactive (not dialled). */
  status: number;
  created_date: string;
  updated_date: string;
}
