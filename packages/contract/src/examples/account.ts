/** Examples of the OAuth, company, todo and timeline operations (operations.ts gathers them). */
import { ids, list, ok, page, todo, validatedTodo } from "./resources.ts";

const timeline = {
  id: ids.timeline,
  name: "Standard B2C reminders",
  description: "Email at due date, SMS a week later, then a call",
  is_default: true,
  scheduling: {
    timezone: "Europe/Paris",
    allowed_weekdays: [1, 2, 3, 4, 5],
    window_start: "09:00",
    window_end: "18:30",
  },
  timepoints: [
    {
      day_offset: 0,
      position: 0,
      actions: [{ channel: "email", position: 0, configuration: { sender_name: "Acme Supplies" } }],
    },
    { day_offset: 7, position: 1, actions: [{ channel: "sms", position: 0, configuration: {} }] },
    {
      day_offset: 14,
      position: 2,
      actions: [{ channel: "ai_call", position: 0, configuration: { voice: "claire", max_attempts: 2 } }],
    },
  ],
  created_at: "2026-09-02T14:05:11+00:00",
  updated_at: "2026-10-12T09:40:00+00:00",
};
const tokenResponse = {
  access_token: "dcat_9bQm2XkR7vLz4NwP0sYdT1hJcA6eGfU3",
  token_type: "Bearer",
  expires_in: 3600,
  scope: "debts:read debts:write",
};
const tokenRequest = {
  grant_type: "client_credentials",
  client_id: "dcc_3f9a1c7e5b2d4a60",
  client_secret: "dcs_Wm8pQ2vX7kR4tY9zL3nB6cJ1hF5dG0sA",
  scope: "debts:read debts:write",
};

export const accountExamples = {
  issueToken: { request: tokenRequest, response: tokenResponse },
  issueTokenAlias: { request: tokenRequest, response: tokenResponse },
  revokeToken: {
    request: {
      token: tokenResponse.access_token,
      token_type_hint: "access_token",
      client_id: tokenRequest.client_id,
      client_secret: tokenRequest.client_secret,
    },
    response: {},
  },
  getAuthorizationServerMetadata: {
    response: {
      issuer: "https://api.example.com",
      authorization_endpoint: "https://api.example.com/oauth/authorize",
      token_endpoint: "https://api.example.com/oauth/token",
      revocation_endpoint: "https://api.example.com/oauth/revoke",
      scopes_supported: [
        "debts:read",
        "debts:write",
        "followups:read",
        "followups:write",
        "creditors:read",
        "creditors:write",
        "debtors:read",
        "debtors:write",
        "reports:read",
        "company:read",
        "users:read",
      ],
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "client_credentials", "refresh_token"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      code_challenge_methods_supported: ["S256"],
      service_documentation: "https://api.example.com/docs",
      authorization_response_iss_parameter_supported: true,
    },
  },
  getCompanyProfile: {
    response: ok("Company profile retrieved successfully", {
      id: ids.company,
      name: "Acme Collections",
      email: "finance@acme-collections.example",
      phone: "+33140000001",
      created_at: "2026-09-01T10:00:00+00:00",
    }),
  },
  getCompanyStatistics: {
    response: ok("Company statistics retrieved successfully", { debts: { total: 1284 }, followups: { total: 5310 } }),
  },
  getCompanyCredits: {
    response: ok("Company credits retrieved successfully", {
      current_credits: 4200,
      subscription: { plan: "growth", status: "active", expires_at: "2027-09-01T00:00:00+00:00" },
    }),
  },
  listCompanyUsers: {
    query: page,
    response: list([
      {
        id: ids.user,
        email: "claire.martin@acme-collections.example",
        name: "Claire Martin",
        role: "admin",
        created_at: "2026-09-01T10:00:00+00:00",
        disabled_at: null,
      },
      {
        id: ids.secondUser,
        email: "paul.roux@acme-collections.example",
        name: "Paul Roux",
        role: "member",
        created_at: "2026-09-14T08:30:00+00:00",
        disabled_at: null,
      },
    ]),
  },
  getTodoStats: {
    query: { period: "last_30_days" },
    response: ok("Todo statistics retrieved successfully", {
      period: "last_30_days",
      since: "2026-10-22T00:00:00+00:00",
      stats: {
        agreements: { total: 18, active: 11, pending: 4, overdue: 3 },
        debtor_requests: { total: 9, by_type: { portal_dispute: 2, hardship: 3, payment_plan: 4 } },
        ai_detections: { total: 5, by_type: { ai_dispute: 3, objection: 2 } },
        blocking_disputes: { total: 5, by_status: { suggested: 2, validated: 2, rejected: 1 } },
        non_blocking_disputes: { total: 2, by_status: { suggested: 1, validated: 1, rejected: 0 } },
        total: { all: 34 },
      },
    }),
  },
  listTodos: { query: page, response: list([todo]) },
  validateTodo: {
    path: { id: ids.todo },
    request: { note: "Agreed on the phone" },
    response: ok("Todo validated successfully", validatedTodo),
  },
  rejectTodo: {
    path: { id: ids.todo },
    request: { note: "Three months is too long for this amount" },
    response: ok("Todo rejected successfully", {
      ...todo,
      review_status: "rejected",
      note: "Three months is too long for this amount",
      reviewed_at: "2026-11-21T09:15:00+00:00",
    }),
  },
  listTimelines: { query: page, response: list([timeline]) },
} as const;

/** The consent form a company user submits on the authorization page, approving the request. */
export const authorizationFormExample = {
  response_type: "code",
  client_id: "dcc_7b2e9d41c0a35f86",
  redirect_uri: "https://erp.acme-supplies.example/oauth/callback",
  scope: "debts:read followups:read",
  state: "af0ifjsldkj3490",
  code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  code_challenge_method: "S256",
  action: "approve",
  csrf_token: "f3kQ9zX2vB7nL1pR8sT4yW6cJ0hD5gAm",
} as const;
