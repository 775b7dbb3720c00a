/** The review queue: its rows, its list, its reviews and the counts of `GET /todos/stats`. */
export * from "./count-todos.ts";
export * from "./list-todos.ts";
export * from "./lock-todo.ts";
export * from "./record-review.ts";
export * from "./todo-rows.ts";
