"""The content floor: the course as the instructors wrote it. Pure code: no HTTP, no database.

- :mod:`app.content.course`, :mod:`app.content.lessons`: the course and its lessons, loaded
  from Markdown files (errors carry ``file:line``, :mod:`app.content.errors`);
  :mod:`app.content.blocks`: the registry of the special blocks, one processor per kind;
- :mod:`app.content.markdown`, :mod:`app.content.boxes`, :mod:`app.content.charts`,
  :mod:`app.content.calculators`, :mod:`app.content.layout`: rendering a lesson's parts;
- :mod:`app.content.quiz`, :mod:`app.content.numbers`, :mod:`app.content.item_checks`:
  questions, options and their checks;
- :mod:`app.content.trees`, :mod:`app.content.walk`, :mod:`app.content.tree_json`: decision
  trees, a walk through one, and their public JSON form;
- :mod:`app.content.glossary`, :mod:`app.content.concepts`, :mod:`app.content.search`,
  :mod:`app.content.links`, :mod:`app.content.text`: the glossary, concepts, search and links;
- :mod:`app.content.lesson_cache`, :mod:`app.content.live`, :mod:`app.content.sourcefile`,
  :mod:`app.content.scaffold`, :mod:`app.content.yamlsrc`: caching, reloading and reading
  the files.

May import: nothing of the app but the pt-BR catalog (:mod:`app.i18n`, a leaf).
The contracts are in ``pyproject.toml`` (``[tool.importlinter]``).
"""
