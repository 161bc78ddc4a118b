/** The `ItemsConfig` branch of the registry's configuration. */
export const ITEMS_CONFIG = Symbol('ITEMS_CONFIG');

/** The process logger, for what items say at start. */
export const ITEMS_LOGGER = Symbol('ITEMS_LOGGER');
