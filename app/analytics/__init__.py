"""The analytics floor: what instructors read about a course and its learners.

- :mod:`app.analytics.dashboard`: the funnel and per-question figures, from the tallies
  :mod:`app.learning.tallies` keeps with each answer;
- :mod:`app.analytics.dashboard_cache`: the dashboard's figures, each tab's part kept per
  course version;
- :mod:`app.analytics.dashboard_view`: the dashboard as the page shows it (typed views: shares,
  labels that agree with their counts, plural texts), so the template computes nothing;
- :mod:`app.analytics.item_analysis`: how each question and option performs (difficulty,
  discrimination, distractors);
- :mod:`app.analytics.exports`: CSV exports of the answers.

May import: content, platform, learning. Never imports web or cli.
"""
