import { defineRefusals } from '@bo/runtime';

/** Every refusal of warehouses and their locations, by name. */
export const locationRefusals = defineRefusals('location', {
  locationNotFound: (locationId: string) => ({ code: 'not_found', message: `Location ${locationId} not found` }),
  warehouseNotFound: (warehouseId: string | number) => ({ code: 'not_found', message: `Warehouse ${warehouseId} not found` }),
  /** A warehouse with no location to hold stock at. */
  warehouseWithoutLocation: (warehouseId: number) => ({ code: 'not_found', message: `Location in warehouse ${warehouseId} not found` }),
  warehouseNameTaken: (name: string) => ({ code: 'duplicate', field: 'name', message: `Warehouse ${name} already exists` }),
  locationNameTaken: (name: string, warehouse: string) => ({
    code: 'duplicate',
    field: 'name',
    message: `Location ${name} already exists in warehouse ${warehouse}`,
  }),
});
