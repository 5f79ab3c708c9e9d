# Names vulture reports in app/ that something it cannot see uses: a template, a library
# calling our override, pydantic or SQLModel filling a field, a test. One line each, with who
# uses it; `make vulture` reads this file with app/ (pyproject.toml, [tool.vulture]).
# A name here that nothing uses any more is dead code again: delete both.
# ruff: noqa
# mypy: ignore-errors

# --- Read by a template (Jinja reads attributes vulture cannot follow) -----------------------
_.last_7_days  # templates/_dashboard_overview.html
_.last_30_days  # templates/_dashboard_overview.html
_.finished  # templates/_dashboard_overview.html, progress.html, _dashboard_trees.html, _resume.html
_.is_distractor  # templates/_option_chart.html
_.all_pct  # templates/_option_chart.html
_.upper_pct  # templates/_option_chart.html
_.lower_pct  # templates/_option_chart.html
_.variant_rows  # templates/_dashboard_questions.html
_.label_text  # templates/_dashboard_questions.html, _mastery.html
pool_footer_anchor  # templates/_pool_footer.html (ids.pool_footer_anchor)
pool_note_anchor  # templates/_pool.html (ids.pool_note_anchor)
_.bar_width  # templates/_dashboard_funnel.html
_.author  # templates/lesson_history.html
_.updated_at  # templates/editor.html (the draft's time; also a column, migrations/0007)
_.words_html  # templates/_calculator_result.html
_.source_text  # templates/lesson.html
_.tree_title  # templates/_question.html (a scenario question's walk)
_.result_title  # templates/_question.html, _questions_with_key.html
_.working_html  # templates/_numeric_result.html, _questions_with_key.html
_.input_type  # templates/_question.html
_.snippet_html  # templates/_search_listbox.html, _search_results.html
_.on_time  # templates/_due_table.html
_.late_learners  # templates/_due_table.html
_.latest_correct  # templates/_question.html
_.due_today  # templates/notebook.html
_.section_title  # templates/_resume.html
_.widget_query  # templates/_tree_widget.html
_.map_view  # templates/_tree_map.html, _tree_widget.html
_.dom_id  # templates/_tree_map.html
_.view_box  # templates/_tree_map.html
_.nav_section  # templates/base.html (urls.nav_section)
_.answer_route  # templates/_question.html (question_mode)
_.unfolded  # templates/_question.html (question_mode)
_.first_try_right  # templates/progress.html; /api/progresso (app/web/public.py, by asdict)

# --- Data read from a file or written to a column, never read back by name --------------------
_.nota  # engines.yml's free note per engine: a known key, so the file validates (extra="forbid")
_.ALTERNATIVE  # a tree result's verdict in YAML: Verdict(value) builds it
_.AVOID  # the same
_.sent_at  # lti_score.sent_at, set by app/lti/scores.py in an UPDATE's dict of values
_.exported_at  # a field of the JSON export (app/web/public.py), set by keyword

# --- A library calls it (our override of its interface, or its settings we set) ---------------
_.STORAGE_SCHEME  # limits.storage.Storage: the scheme it registers the storage under
_.base_exceptions  # limits.storage.Storage
_.incr  # limits.storage.Storage
_.get_expiry  # limits.storage.Storage
_.reset  # limits.storage.Storage
_.get_kid  # pylti1p3 Registration (app/lti/library.py)
_.get_jwks  # pylti1p3 Registration
_.check_iss_has_one_client  # pylti1p3 ToolConfAbstract
_.check_iss_has_many_clients  # pylti1p3 ToolConfAbstract
_.find_registration_by_issuer  # pylti1p3 ToolConfAbstract
_.find_deployment  # pylti1p3 ToolConfAbstract
_.get_session_cookie_name  # pylti1p3 CookieService
_.can_set_keys_expiration  # pylti1p3 LaunchDataStorage
_.check_value  # pylti1p3 LaunchDataStorage
_.save_nonce  # pylti1p3 SessionService
_.check_nonce  # pylti1p3 SessionService
_._get_cached_access_token  # pylti1p3 ServiceConnector (put_grade raises without it)
_._cache_access_token  # pylti1p3 ServiceConnector
_.validate_jwt_signature  # pylti1p3 MessageLaunch
_.do_js_redirect  # pylti1p3 Redirect (app/web/routes/lti.py)
_.set_redirect_url  # pylti1p3 Redirect
_.get_redirect_url  # pylti1p3 Redirect
_.get_redirect  # pylti1p3 OIDCLogin
_.ARGUMENTS_PANEL_TITLE  # typer.rich_utils: the CLI's help in Portuguese (app/cli/main.py)
_.OPTIONS_PANEL_TITLE  # typer.rich_utils
_.COMMANDS_PANEL_TITLE  # typer.rich_utils
_.ERRORS_PANEL_TITLE  # typer.rich_utils
_.ABORTED_TEXT  # typer.rich_utils
_.REQUIRED_LONG_STRING  # typer.rich_utils
_.DEFAULT_STRING  # typer.rich_utils
_.ENVVAR_STRING  # typer.rich_utils
_.RICH_HELP  # typer.rich_utils
_._  # typer.core's gettext, replaced by the catalog's
_.isolation_level  # sqlite3's connection: None, SQLAlchemy emits BEGIN (app/platform/db.py)
_.autocommit  # the DBAPI connection the session store reads on (app/platform/sessions.py)
_.auto_reload  # Jinja's Environment: templates are read once (app/web/templating.py)
_._value_  # enum.Enum: a member's value when __new__ makes the member (app/i18n LabeledEnum)

# --- Called from outside app/ ----------------------------------------------------------------
check_foreign_keys  # migrations/env.py, after every migration on SQLite
# Kept for tests, beside the code they check:
reference_course_mastery  # the slow reference the kept mastery must equal (tests/test_mastery_kept.py)
decode_answers  # the codec's inverse, for its round trip (tests/test_aggregates.py)
store_now  # the writer's batch in the calling thread (tests/test_writer.py, test_lti_pools.py)
_.overlaps  # tests/test_trees.py: no two boxes of a tree's map overlap
_.rows_read  # the store's count of rows read, for tests/test_learner_states.py
_.batches  # the writer's count of batches, for tests/test_writer.py
