// The bridge between a check and the host, used only inside the component build (componentize-js): it imports the
// `weft:plugin/*` interfaces, which exist only there. Everything it does is in `makeHealthExport` (index.js), which
// runs and is tested in node with fake imports.
//
// The build's entry module is:
//
//     import { assess } from './plugin/check.js';
//     import { component } from './weft-sdk/component.js';
//     export const health = component(assess);

import { log } from 'weft:plugin/log@0.1.0';
import { children } from 'weft:plugin/related@0.1.0';
import { get as getSettings } from 'weft:plugin/settings@0.1.0';
import { callStarted, elapsed } from 'weft:plugin/clock@0.1.0';

import { makeHealthExport } from './index.js';

export { makeHealthExport };

/** The object to export as `health` for the check `assess(obj, cx)`. */
export function component(assess) {
  return makeHealthExport(assess, {
    log,
    children,
    settings: getSettings,
    callStarted,
    elapsed,
  });
}
