"""What sets the markers (tests/conftest.py): Chromium's fixtures, the slow tests and the tests
that only read."""

from __future__ import annotations

# Fixtures of pytest-playwright and ours that start Chromium.
BROWSER_FIXTURES = {"browser", "browser_context_args", "context", "page", "new_page"}
# Tests that take seconds each on two cores (``--durations``): a module, or a module and a
# test name without its parameters. ``make test`` runs them; ``make test-fast`` leaves them out.
SLOW = {
    "test_accounts.py::test_the_limit_holds_across_two_real_uvicorn_workers",
    "test_accounts.py::test_the_limit_is_shared_by_every_worker",
    "test_aggregates.py::test_kept_figures_equal_a_full_sql_recount_and_the_python_rules",
    "test_api_fuzz.py",  # schemathesis over every API operation
    "test_authorization.py::test_the_authorization_matrix",
    "test_check.py::test_crlf_and_bom_files_check_exactly_like_lf",
    "test_check.py::test_nova_creates_a_lesson_that_passes_the_check_with_a_unique_slug",
    "test_cli.py::test_arvore_walks_as_a_real_process",
    "test_dashboard.py::test_ten_thousand_learners_are_counted_by_the_database_not_in_python",
    "test_editor_concurrency.py",  # uvicorn with one and with two workers, per database
    "test_front_door.py::test_two_uvicorns_share_sessions_and_a_sign_out_ends_it_in_both",
    "test_fuzz.py",  # hypothesis, 200 to 300 lessons a test
    "test_history_restore.py::test_every_pushed_or_replaced_url_restores_as_a_full_page",
    "test_i18n.py::test_every_problem_curso_check_reports_is_a_catalog_text",
    "test_instructor.py::test_instructor_pages_need_a_signed_in_instructor",
    "test_lazy_imports.py",  # cold starts of new interpreters
    "test_live.py::test_hot_reload_on_a_live_server_good_broken_good",
    "test_lti.py",  # the course and an LTI platform, each a real uvicorn
    "test_lti_storage.py",  # the same over HTTPS
    "test_migration_data.py::test_curso_migrate_makes_no_copy_of_a_new_or_current_database",
    "test_ops.py::test_backup_of_a_live_database_and_restore",
    "test_passwords.py::test_any_text_hashed_in_one_form_verifies_in_another",
    "test_passwords.py::test_every_unicode_form_of_the_password_signs_in",
    "test_progress.py::test_a_lesson_is_done_when_every_question_was_right_at_least_once",
    "test_progress.py::test_options_are_shuffled_per_learner_stable_and_graded_by_id_over_50_learners",
    "test_question_kinds.py::test_check_reports_each_problem_with_file_line_and_column",
    "test_question_version.py::test_every_question_of_the_course_refuses_another_version",
    "test_search.py::test_search_works_under_the_c_locale",
    "test_security_review.py::test_concurrent_failed_sign_ins_check_no_more_passwords_than_the_limit",
    "test_security_review.py::test_concurrent_instructor_requests_do_not_exhaust_the_pool",
    "test_trees.py::test_phase17_guide_hardware_then_scale_then_workload",
    "test_xss.py::test_csp_forbids_inline_scripts",
}
# Tests that only read pages as a visitor (GET and HEAD, no account): their ``client`` refuses
# any other method (like every default ``client``, it is a new client of the shared app, see
# tests/support/shared_app.py), so none of them starts writing unnoticed.
READ_ONLY = {
    "test_calculator.py::test_the_get_form_shows_the_result_in_the_page",
    "test_calculator.py::test_a_refused_value_in_the_page_marks_its_input",
    "test_calculator.py::test_the_htmx_fragment_announces_and_keeps_a_shareable_url",
    "test_delivery.py::test_pages_link_fingerprinted_static_files_cached_for_a_year",
    "test_delivery.py::test_plain_and_stale_static_names_still_work_but_revalidate",
    "test_delivery.py::test_the_bundle_answers_304_to_its_etag_and_a_head_without_its_body",
    "test_delivery.py::test_html_has_an_etag_and_answers_304_when_unchanged",
    "test_delivery.py::test_responses_are_compressed",
    "test_glossary.py::test_glossary_page_lists_terms_in_order_with_where_they_appear",
    "test_history_restore.py::test_search_restore_reproducer_gets_the_full_page",
    "test_http.py::test_home_lists_the_lessons_in_order_with_status",
    "test_http.py::test_lesson_page_has_toc_body_quiz_and_pager",
    "test_http.py::test_no_key_and_no_explanation_reach_the_page_before_answering",
    "test_http.py::test_head_and_wrong_method",
    "test_i18n.py::test_pages_show_no_untranslated_message",
    "test_lesson_text.py::test_no_page_reads_markdown_aloud_or_drops_angle_brackets",
    "test_lesson_text.py::test_visible_texts_render_their_markdown",
    "test_lesson_text.py::test_json_and_terminal_get_plain_text",
    "test_question_kinds.py::test_numeric_form_shows_an_input_with_its_unit_and_no_key",
    "test_question_kinds.py::test_ordering_form_has_a_position_select_per_item_in_the_learner_order",
    "test_search.py::test_decodificacao_is_found_however_it_is_typed",
    "test_search.py::test_kernel_finds_kernels",
    "test_search.py::test_every_result_links_to_a_heading_that_exists",
    "test_search.py::test_results_summary_and_empty_states",
    "test_search.py::test_htmx_gets_only_the_results_fragment",
    "test_security_review.py::test_no_redirect_takes_its_host_from_the_request",
    "test_security_review.py::test_personal_json_is_never_stored_by_a_cache",
    "test_trees_http.py::test_lesson_shows_the_tree_at_its_start_with_the_whole_map",
    "test_trees_http.py::test_path_in_the_url_reproduces_the_walk",
    "test_trees_http.py::test_a_bad_path_restarts_with_a_message",
    "test_trees_http.py::test_back_and_restart_fragments",
    "test_trees_http.py::test_tree_pages_and_404",
    "test_trees_http.py::test_compare_shows_both_guides_and_where_they_differ",
    "test_trees_http.py::test_compare_asks_for_missing_facets_and_names_uncovered_cases",
    "test_trees_http.py::test_compare_shows_the_long_context_disagreement_and_walks_amd_and_blackwell",
    "test_trees_http.py::test_json_api_lists_and_returns_trees",
    "test_trees_http.py::test_chart_is_an_accessible_svg_with_bars_to_scale",
    "test_visitor_pages.py::test_the_chosen_theme_is_a_page_of_its_own",
}
