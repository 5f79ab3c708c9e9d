"""MkDocs Material built from the course's own lessons, served gzipped by nginx: the other
column of the side-by-side table (:mod:`bench.side_by_side`, issue 38).

The lessons' Markdown files are copied as they are (front matter and all: MkDocs reads its
``title``) into a throw-away MkDocs project, in the course's order, and built with the theme
``material`` in pt-BR with instant navigation (``navigation.instant``), the footer's previous and
next links (``navigation.footer``) and the search plugin in Portuguese: the setup issue 38's
figures were taken with. MkDocs Material comes from the ``bench`` extra of pyproject.toml.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from app.content.course import load_course
from bench.run import RUNNING, free_port, stop_process_group, wait_http

MKDOCS_YML = {
    "site_name": "Engines de inferência",
    "use_directory_urls": True,
    "theme": {
        "name": "material",
        "language": "pt-BR",
        "features": ["navigation.instant", "navigation.footer"],
    },
    "plugins": [{"search": {"lang": "pt"}}],
    "markdown_extensions": ["tables", "toc", "admonition"],
}


def build(lessons: Path, work: Path) -> tuple[Path, dict[str, str]]:
    """Build the site into ``work / "site"``; return it and each lesson's path by slug.

    Raises:
        subprocess.CalledProcessError: ``mkdocs build`` failed (its output says why).
    """
    docs = work / "docs"
    docs.mkdir(parents=True)
    nav, paths = [], {}
    for lesson in load_course(lessons).lessons:
        source = next(p for p in sorted(lessons.glob("*.md")) if _slug_of(p) == lesson.slug)
        shutil.copyfile(source, docs / f"{lesson.slug}.md")
        nav.append({lesson.meta.title_text: f"{lesson.slug}.md"})
        paths[lesson.slug] = f"/{lesson.slug}/"
    shutil.copyfile(docs / f"{next(iter(paths))}.md", docs / "index.md")
    config = {**MKDOCS_YML, "nav": nav}
    (work / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), "utf-8")
    site = work / "site"
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--quiet", "-f", str(work / "mkdocs.yml")],
        cwd=work,
        check=True,
        capture_output=True,
        text=True,
    )
    for path in [work, *work.rglob("*")]:  # nginx's workers run as nobody
        path.chmod(0o755 if path.is_dir() else 0o644)
    return site, paths


def _slug_of(path: Path) -> str:
    """The ``slug:`` of a lesson file's front matter ("" when it has none)."""
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return ""
    meta = yaml.safe_load(text.split("---", 2)[1]) or {}
    return str(meta.get("slug", ""))


class StaticSite:
    """nginx serving a folder, gzipped (as a static host would), on a free port."""

    def __init__(self, root: Path):
        self.port = free_port()
        folder = root.parent
        conf = folder / "nginx-site.conf"
        conf.write_text(
            f"worker_processes 1; daemon off; pid {folder}/nginx-site.pid; error_log "
            f"{folder}/nginx-site.log;\n"
            "events { worker_connections 256; }\n"
            "http { access_log off; include /etc/nginx/mime.types; gzip on; gzip_min_length 256;\n"
            "  gzip_types text/css application/javascript text/javascript application/json;\n"
            f"  server {{ listen 127.0.0.1:{self.port}; root {root}; index index.html; }} }}\n",
            encoding="utf-8",
        )
        self.process = subprocess.Popen(
            ["nginx", "-c", str(conf), "-p", str(folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        RUNNING.append(self)
        wait_http(self.base + "/")

    @property
    def base(self) -> str:
        """The site's base URL."""
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Stop nginx."""
        stop_process_group(self.process, grace_s=10)
        if self in RUNNING:
            RUNNING.remove(self)
