export { scaffoldEngine, nextSteps, type ScaffoldOptions, type ScaffoldResult } from "./scaffold.js";
export { engineFiles, type TemplateInput } from "./templates.js";
export { ENGINE_NAME, TEMPLATE_IDENTIFIERS, className } from "./names.js";
export { CORE_RANGE, KIT_RANGE } from "./versions.js";
