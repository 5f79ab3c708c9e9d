"""The authoring floor: what instructors use to write lessons in the browser.

- :mod:`app.authoring.editor`: drafts, previews and saves of a lesson's Markdown;
- :mod:`app.authoring.image_upload`: checks and stores images uploaded to a lesson.

May import: content, platform, learning. Never imports web or cli.
"""
