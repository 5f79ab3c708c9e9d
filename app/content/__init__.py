"""Course content: lessons, Markdown, quizzes. Pure code: no HTTP, no database."""
