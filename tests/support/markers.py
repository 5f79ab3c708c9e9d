"""What sets the markers (tests/conftest.py): Chromium's fixtures and the list of slow tests."""

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
    "test_fuzz.py",  # hypothesis, 200 to 300 lessons a test
    "test_history_restore.py::test_every_pushed_or_replaced_url_restores_as_a_full_page",
    "test_i18n.py::test_every_problem_curso_check_reports_is_a_catalog_text",
    "test_instructor.py::test_instructor_pages_need_a_signed_in_instructor",
    "test_lazy_imports.py",  # cold starts of new interpreters
    "test_live.py::test_hot_reload_on_a_live_server_good_broken_good",
    "test_lti.py",  # the course and an LTI platform, each a real uvicorn
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
