import { defineOperation } from '../operation';
import * as s from './schemas';

export const getProfile = defineOperation({
  name: 'partners.organization.get',
  service: 'partners',
  summary: "The organization's profile (legal data, address, bank, currency, time zone, logo); empty fields are null",
  paths: ['/organization/getprofile'],
  select: { default: true },
  write: false,
  request: s.getProfileRequest,
  reply: s.profileReply,
});

export const setProfile = defineOperation({
  name: 'partners.organization.set',
  service: 'partners',
  summary: 'Set the fields given of the organization\'s profile; null or "" clears a field',
  paths: ['/organization/setprofile'],
  select: { default: true },
  write: true,
  request: s.setProfileRequest,
  reply: s.profileReply,
  rules: [
    { field: 'cash_rounding', rule: 'a multiple of the smallest amount of default_currency, as the profile stands after the change' },
    {
      field: 'default_currency',
      rule: "unchanged once the organization's first journal entry has posted (the books' accounting currency)",
    },
  ],
});

export const organizationOperations = [getProfile, setProfile];
