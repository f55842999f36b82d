// Ranges the scaffold writes; any 0.x release of the contract packages satisfies them.
export const CORE_RANGE = ">=0.1.0 <1.0.0";
export const KIT_RANGE = ">=0.1.0 <1.0.0";
export const TYPESCRIPT_VERSION = "5.9.3";
export const VITEST_VERSION = "4.1.12";
export const TYPES_NODE_VERSION = "20.19.43";
