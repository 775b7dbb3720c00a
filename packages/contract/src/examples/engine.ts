/** Examples of a debt's timeline and the sandbox operations (operations.ts gathers them). */
import { ids, list, ok, page } from "./resources.ts";

const secondFollowup = "uVtE3aQmZ0c7yHkB2xWnP9sLrD4fJ6gT1oI";
const thirdFollowup = "Qm7rT2xW9bLk4NvP0sYdH1jCa6EgFu3ZcRo";

const decision = {
  decided_at: "2026-11-24T08:00:00+00:00",
  decision: "defer",
  reason: "quiet_hours",
  detail: "08:00 in Europe/Paris is before the window opens at 09:00",
  deferred_until: "2026-11-24T09:00:00+00:00",
};

const debtTimeline = (
  state: string,
  reason: string | null,
  nextActionAt: string | null,
  pausedUntil: string | null,
) => ({
  debt_id: ids.debt,
  timeline_id: ids.timeline,
  version: 2,
  state,
  reason,
  paused_until: pausedUntil,
  started_at: "2026-11-21T09:30:00+00:00",
  restarts: 0,
  next_action_at: nextActionAt,
  now: "2026-11-25T10:12:00+00:00",
  steps: [
    {
      step: 0,
      day_offset: 0,
      channel: "email",
      due_at: "2026-11-21T09:30:00+00:00",
      status: "done",
      followups: [
        {
          id: ids.followup,
          status: "delivered",
          attempt: 1,
          is_retry: false,
          scheduled_at: "2026-11-21T09:30:00+00:00",
          processed_at: "2026-11-21T09:30:02+00:00",
          recipient: "jane.doe@example.com",
          decisions: [],
        },
      ],
    },
    {
      step: 1,
      day_offset: 3,
      channel: "sms",
      due_at: "2026-11-24T09:30:00+00:00",
      status: "done",
      followups: [
        {
          id: secondFollowup,
          status: "sent",
          attempt: 1,
          is_retry: false,
          scheduled_at: "2026-11-24T09:00:00+00:00",
          processed_at: "2026-11-24T09:00:01+00:00",
          recipient: "+33612345678",
          decisions: [decision],
        },
      ],
    },
    {
      step: 2,
      day_offset: 7,
      channel: "ai_call",
      due_at: "2026-11-28T09:30:00+00:00",
      status: "waiting",
      followups: [
        {
          id: thirdFollowup,
          status: state === "paused" ? "on_hold" : "scheduled",
          attempt: 1,
          is_retry: false,
          scheduled_at: "2026-11-28T09:30:00+00:00",
          processed_at: null,
          recipient: null,
          decisions: [],
        },
      ],
    },
    {
      step: 3,
      day_offset: 14,
      channel: "email",
      due_at: "2026-12-05T09:30:00+00:00",
      status: "upcoming",
      followups: [],
    },
  ],
});

const active = debtTimeline("active", null, "2026-11-28T09:30:00+00:00", null);
const clock = { now: "2026-12-05T09:30:00+00:00" };

export const engineExamples = {
  getDebtTimeline: { path: { id: ids.debt }, response: ok("Debt timeline retrieved successfully", active) },
  pauseDebtTimeline: {
    path: { id: ids.debt },
    request: { until: "2026-12-01T00:00:00+01:00", reason: "Customer on holiday" },
    response: ok(
      "Debt timeline paused successfully",
      debtTimeline("paused", "Customer on holiday", null, "2026-11-30T23:00:00+00:00"),
    ),
  },
  resumeDebtTimeline: { path: { id: ids.debt }, response: ok("Debt timeline resumed successfully", active) },
  restartDebtTimeline: {
    path: { id: ids.debt },
    response: ok("Debt timeline restarted successfully", {
      ...active,
      restarts: 1,
      started_at: "2026-11-25T10:12:00+00:00",
      next_action_at: "2026-11-25T10:12:00+00:00",
      steps: active.steps.map((step) => ({
        ...step,
        due_at: step.due_at.replace("2026-11-21T09:30", "2026-11-25T10:12"),
        status: step.step === 0 ? "waiting" : "upcoming",
        followups:
          step.step === 0
            ? [
                {
                  ...step.followups[0]!,
                  id: thirdFollowup,
                  status: "scheduled",
                  processed_at: null,
                  recipient: null,
                  scheduled_at: "2026-11-25T10:12:00+00:00",
                },
              ]
            : [],
      })),
    }),
  },
  getSandboxClock: { response: ok("Sandbox clock retrieved successfully", { now: "2026-11-21T09:30:00+00:00" }) },
  advanceSandboxClock: {
    request: { to: "2026-12-05T10:30:00+01:00" },
    response: ok("Sandbox clock advanced successfully", clock),
  },
  listSandboxMessages: {
    query: { ...page, debt_id: ids.debt },
    response: list([
      {
        id: "b1nP8sW3qL0xZr5TkYc7vD2mHa9Ej4FgUo6",
        debt_id: ids.debt,
        followup_id: secondFollowup,
        channel: "sms",
        recipient: "+33612345678",
        subject: null,
        body: "Jane, your invoice INV-2026-1001 of 120.50 EUR is overdue. Pay at https://pay.example.com/i/INV-2026-1001",
        outcome: "sent",
        sent_at: "2026-11-24T09:00:01+00:00",
      },
      {
        id: "Xk2mR7tB4nQ9wZ1sLp6cV3dH8jF0gA5eUyo",
        debt_id: ids.debt,
        followup_id: ids.followup,
        channel: "email",
        recipient: "jane.doe@example.com",
        subject: "Your invoice INV-2026-1001",
        body: "Hello Jane,\n\nYour invoice INV-2026-1001 of 120.50 EUR from Acme Supplies SAS is overdue.",
        outcome: "delivered",
        sent_at: "2026-11-21T09:30:02+00:00",
      },
    ]),
  },
} as const;
