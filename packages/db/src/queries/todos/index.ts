/** What awaits review: the open todos and the counts of `GET /todos/stats`. */
export * from "./count-todos.ts";
export * from "./list-open-todos.ts";
