/** Examples of the followup and media operations (operations.ts gathers them). */
import { followup, ids, list, ok, page } from "./resources.ts";

const followupUpdate = {
  status: "deal_found",
  summary: "Payment received by card on 23 November.",
  notes: "Close the case once the payment clears.",
};
const followupCreate = {
  debt_id: ids.debt,
  type: "call",
  status: "deal_found",
  call_date: "2026-11-22T10:15:00+00:00",
  scheduled_at: "2026-11-22T10:00:00+00:00",
  summary: "The debtor agreed to pay the full balance by card before 30 November.",
  notes: "Prefers calls after 10:00.",
  call_id: "call_7f3a9c21",
  phone_number_used: "+33612345678",
  disconnection_reason: "user_hangup",
  duration_ms: 184000,
  direction: "outbound",
  is_retry: false,
};

/** The same update by PUT and by PATCH. */
const updatedFollowup = {
  path: { id: ids.followup },
  request: followupUpdate,
  response: ok("Followup updated successfully", {
    ...followup,
    ...followupUpdate,
    updated_at: "2026-11-23T09:00:00+00:00",
  }),
};

export const followupsExamples = {
  createFollowup: { request: followupCreate, response: ok("Followup created successfully", followup) },
  listFollowups: { query: page, response: list([followup]) },
  listFollowupsByDebt: { path: { debtId: ids.debt }, query: page, response: list([followup]) },
  getFollowup: { path: { id: ids.followup }, response: ok("Followup retrieved successfully", followup) },
  updateFollowup: updatedFollowup,
  patchFollowup: updatedFollowup,
  getMedia: {
    path: { key: `${ids.company}.${ids.followup}.audio` },
    query: { expires: 1764064800, signature: "q3Zk8vN1xP0bT6mR2yW9sL4cJ7hD5fGa" },
    response: { error: false, message: "Redirecting to the media" },
  },
} as const;
