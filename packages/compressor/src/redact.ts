/**
 * Masks credentials before text leaves the transcript (into a summariser
 * prompt or a summary), with the secret families of `@context-engine/core`:
 * the same rules LCM applies before storing, so both engines hide the same
 * secrets and keep the same look-alikes (hashes, UUIDs, identifiers).
 * Each secret becomes `[REDACTED:<kind>]`.
 */
export { redactSecrets } from "@context-engine/core";
