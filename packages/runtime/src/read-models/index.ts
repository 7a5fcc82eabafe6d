export * from './versioned';
export * from './partner-directory';
export * from './partner-delete-fence';
export * from './partner-roles';
export * from './organization-settings';
