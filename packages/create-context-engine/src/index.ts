export { scaffoldEngine, nextSteps, shellQuote, type ScaffoldOptions, type ScaffoldResult } from "./scaffold.js";
export { engineFiles, type TemplateInput } from "./templates.js";
export { ENGINE_NAME, TEMPLATE_IDENTIFIERS, className, engineNameProblem } from "./names.js";
export { CORE_RANGE, KIT_RANGE } from "./versions.js";
