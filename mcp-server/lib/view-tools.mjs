// @ts-check
// The app-only tools a view hands its work back with: the server offers
// them (lib/server.mjs), the view calls them (view/view.js).

/** The view takes the call it was shown for, and the session's runs to replay first. */
export const CLAIM_TOOL = "sandpit_view_claim";
/** The view hands on output of its call as the code writes it. */
export const OUTPUT_TOOL = "sandpit_view_output";
/** The view hands back its call's result, and which replays failed. */
export const RESULT_TOOL = "sandpit_view_result";
