"""Decision trees: validation with file:line, the walk, scenario keys, the map layout."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.content.course import load_course
from app.content.layout import layout
from app.content.trees import Tree, TreeOption, TreeQuestion, TreeResult, Verdict
from app.content.walk import WalkError, walk_facts, walk_path
from tests.support.app import REPO_LESSONS
from tests.support.learning import COURSE
from tests.support.lessons import HEADER, SCENARIO, TREE
from tests.support.problems import CHART_PROBLEMS, SCENARIO_PROBLEMS, TREE_PROBLEMS, broken


def course_from(tmp_path: Path, text: str):
    (tmp_path / "licao.md").write_text(HEADER + text, encoding="utf-8")
    return load_course(tmp_path)


def messages(tmp_path: Path, text: str) -> list[str]:
    course = course_from(tmp_path, text)
    assert course.lessons == (), "uma lição com erro fica fora do curso"
    return [str(e).replace(f"{tmp_path}/", "") for e in course.errors]


def test_valid_tree_loads_and_is_placed_in_the_lesson(tmp_path):
    course = course_from(tmp_path, TREE)
    assert course.errors == ()
    tree = course.trees["mini"]
    assert course.tree_lessons == {"mini": "arvore-teste"}
    assert list(tree.questions) == ["hw", "scale"] and list(tree.results) == ["r-cpu", "r-vllm"]
    assert tree.questions["hw"].options[1].values == ("gpu", "nvidia")
    assert tree.line == 14  # first YAML line; the fence opens on 13


@pytest.mark.parametrize(("old", "new", "expected"), TREE_PROBLEMS)
def test_each_tree_problem_names_file_and_line(tmp_path, old, new, expected):
    assert expected in messages(tmp_path, broken(TREE, old, new))


def test_a_tree_id_used_twice_in_a_lesson_is_an_error_at_the_second(tmp_path):
    found = messages(tmp_path, TREE + TREE)
    lines = (tmp_path / "licao.md").read_text(encoding="utf-8").splitlines()
    second = [n + 1 for n, line in enumerate(lines, 1) if line == "```decision-tree"][
        1
    ]  # its 1st line
    assert found == [f"licao.md:{second}:1: error: id de árvore repetido na lição: `mini`"]


def test_walk_by_values_and_by_facts(tmp_path):
    tree = course_from(tmp_path, TREE).trees["mini"]
    walk = walk_path(tree, ["gpu", "many"])
    assert walk.result.id == "r-vllm" and walk.current is None
    assert walk.values == ("gpu", "many") and walk.back() == ("gpu",)
    assert walk.edges == {("hw", 1), ("scale", 1)}
    assert walk_path(tree, ["nvidia"]).current.id == "scale", "qualquer valor da opção serve"
    assert walk_facts(tree, {"hardware": "cpu"}).result.id == "r-cpu"
    with pytest.raises(WalkError, match="`tpu` não é uma opção da pergunta `hw`"):
        walk_path(tree, ["tpu"])
    with pytest.raises(WalkError, match="depois de um resultado"):
        walk_path(tree, ["cpu", "one"])
    with pytest.raises(WalkError, match="falta o fato `scale`"):
        walk_facts(tree, {"hardware": "gpu"})


def test_scenario_key_is_computed_from_the_tree(tmp_path):
    course = course_from(tmp_path, TREE + SCENARIO)
    question = course.lessons[0].questions["cenario"]
    assert question.answer == {"a"}
    assert question.scenario.situation == (("hardware", "GPU"), ("scale", "Muitos"))
    edited = TREE.replace("engines: [vLLM, SGLang]", "engines: [llama.cpp]")
    moved = course_from(tmp_path, edited + SCENARIO).lessons[0].questions["cenario"]
    assert moved.answer == {"b"}, "editar a árvore muda o gabarito, sem chave escrita à mão"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    SCENARIO_PROBLEMS,
)
def test_scenario_that_does_not_reach_a_result_fails_the_check(tmp_path, old, new, expected):
    lines = messages(tmp_path, TREE + SCENARIO.replace(old, new, 1))
    assert lines == [f"licao.md:53:3: error: {expected}"]


def test_course_trees_and_scenarios():
    course = COURSE
    assert set(course.trees) == {"guia-osman", "guia-fase17"}
    scenarios = [q for lesson in course.lessons for q in lesson.questions.values() if q.scenario]
    assert len(scenarios) >= 3
    fleet = course.get("escolha-self-hosted").questions["frota-mista"]
    assert fleet.answer == {"b"} and fleet.scenario.result_title.startswith("vLLM")


OSMAN_ORDER = [
    ("apple", None, "MLX / MLX-LM"),
    ("edge", None, "llama.cpp"),
    ("rtx-1", None, "ExLlamaV2"),
    ("nvidia-multi", None, "ExLlamaV3"),
    ("hopper", "general-production", "vLLM"),
    ("hopper", "long-context", "SGLang"),
    ("hopper", "max-performance", "TensorRT-LLM"),
    ("hopper", "cluster", "NVIDIA Dynamo"),
    ("hopper", "convenience", "Ollama"),
]


@pytest.mark.parametrize(("hardware", "goal", "engine"), OSMAN_ORDER)
def test_osman_guide_has_the_nine_results_in_order(hardware, goal, engine):
    tree = COURSE.trees["guia-osman"]
    facts = {"hardware": hardware, **({"goal": goal} if goal else {})}
    result = walk_facts(tree, facts).result
    assert result.title == engine
    assert (result.verdict is Verdict.AVOID) == (engine == "Ollama")


@pytest.mark.parametrize(
    ("goal", "engine"),
    [("general-production", "vLLM"), ("long-context", "SGLang"), ("convenience", "Ollama")],
)
def test_osman_guide_takes_amd_to_the_goals_that_need_no_nvidia(goal, engine):
    """Issue 37, E7: Ollama runs on AMD GPUs, so AMD readers meet the guide's ⛔ Ollama too."""
    tree = COURSE.trees["guia-osman"]
    walk = walk_facts(tree, {"hardware": "amd", "goal": goal})
    assert walk.steps[0].option.label == "GPU AMD"
    assert walk.result.title == engine
    assert (walk.result.verdict is Verdict.AVOID) == (engine == "Ollama")


@pytest.mark.parametrize("goal", ["max-performance", "cluster"])
def test_osman_guide_offers_amd_no_nvidia_only_engine(goal):
    """Issue 25, E3: AMD used to reach TensorRT-LLM ("NVIDIA-only") and NVIDIA Dynamo."""
    tree = COURSE.trees["guia-osman"]
    with pytest.raises(WalkError) as caught:
        walk_facts(tree, {"hardware": "amd", "goal": goal})
    assert caught.value.node == "goal-amd"


@pytest.mark.parametrize(
    ("facts", "engines"),
    [
        ({"hardware": "cpu"}, ("llama.cpp",)),
        ({"hardware": "apple", "scale": "one-user"}, ("Ollama", "llama.cpp")),
        ({"hardware": "apple", "scale": "team"}, ("llama.cpp",)),
        ({"hardware": "apple", "scale": "enterprise"}, ("llama.cpp",)),
        ({"hardware": "amd", "scale": "one-user"}, ("vLLM",)),
        ({"hardware": "amd", "scale": "team"}, ("vLLM",)),
        ({"hardware": "amd", "scale": "enterprise"}, ("vLLM",)),
        ({"hardware": "amd", "scale": "production", "workload": "chat"}, ("vLLM",)),
        ({"hardware": "amd", "scale": "production", "workload": "agents"}, ("vLLM", "SGLang")),
        ({"hardware": "amd", "scale": "production", "workload": "rag"}, ("vLLM", "SGLang")),
        ({"hardware": "amd", "scale": "production", "workload": "code"}, ("vLLM", "SGLang")),
        (
            {"hardware": "amd", "scale": "production", "workload": "long-context"},
            ("vLLM", "SGLang"),
        ),
        ({"hardware": "blackwell", "scale": "one-user"}, ("Ollama",)),
        ({"hardware": "blackwell", "scale": "team"}, ("vLLM",)),
        ({"hardware": "blackwell", "scale": "enterprise"}, ("vLLM", "TensorRT-LLM")),
        (
            {"hardware": "blackwell", "scale": "production", "workload": "chat"},
            ("vLLM", "TensorRT-LLM"),
        ),
        (
            {"hardware": "blackwell", "scale": "production", "workload": "agents"},
            ("SGLang", "TensorRT-LLM"),
        ),
        (
            {"hardware": "blackwell", "scale": "production", "workload": "rag"},
            ("SGLang", "TensorRT-LLM"),
        ),
        (
            {"hardware": "blackwell", "scale": "production", "workload": "code"},
            ("vLLM", "SGLang", "TensorRT-LLM"),
        ),
        (
            {"hardware": "blackwell", "scale": "production", "workload": "long-context"},
            ("vLLM", "SGLang", "TensorRT-LLM"),
        ),
        ({"hardware": "hopper", "scale": "one-user"}, ("Ollama",)),
        ({"hardware": "hopper", "scale": "team"}, ("vLLM",)),
        ({"hardware": "hopper", "scale": "enterprise"}, ("vLLM",)),
        ({"hardware": "hopper", "scale": "production", "workload": "chat"}, ("vLLM",)),
        ({"hardware": "hopper", "scale": "production", "workload": "agents"}, ("SGLang",)),
        ({"hardware": "hopper", "scale": "production", "workload": "rag"}, ("SGLang",)),
        ({"hardware": "hopper", "scale": "production", "workload": "code"}, ("vLLM", "SGLang")),
        (
            {"hardware": "hopper", "scale": "production", "workload": "long-context"},
            ("vLLM", "SGLang"),
        ),
    ],
)
def test_phase17_guide_hardware_then_scale_then_workload(facts, engines):
    tree = COURSE.trees["guia-fase17"]
    assert walk_facts(tree, facts).result.engines == engines


def test_blackwell_results_carry_the_hardware_fact_and_amd_never_reaches_trt_llm():
    """Seed 004: "NVIDIA Blackwell (B200 / GB200) → TRT-LLM é o líder em throughput";
    "AMD / não-NVIDIA → apenas vLLM (TRT-LLM é restrito a NVIDIA)"."""
    tree = COURSE.trees["guia-fase17"]
    blackwell = [r for rid, r in tree.results.items() if rid.startswith("bw-")]
    amd = [r for rid, r in tree.results.items() if rid.startswith("amd-")]
    assert len(blackwell) == 8 and len(amd) == 6
    assert all(r.main == "vLLM" for r in amd), "hardware first: “apenas vLLM” on AMD (issue 25, D9)"
    assert all("o TRT-LLM lidera em vazão" in r.why_html for r in blackwell)
    assert all("TensorRT-LLM" not in r.engines for r in amd)


def test_both_long_context_results_name_the_other_texts_view():
    course = COURSE
    osman = course.trees["guia-osman"].results["sglang"]
    assert "vLLM + chunked prefill" in osman.note_html and "Lição 28 da Fase 17" in osman.note_html
    fase17 = course.trees["guia-fase17"]
    for rid in ("long-context", "bw-long-context", "amd-long-context"):
        assert "só para o SGLang" in fase17.results[rid].note_html, rid


def test_layout_of_the_course_trees_has_no_overlap():
    for tree in COURSE.trees.values():
        placed = layout(tree)
        assert set(placed.boxes) == set(tree.questions) | set(tree.results)
        _assert_no_overlap(placed)


def _assert_no_overlap(placed) -> None:
    boxes = list(placed.boxes.values())
    for edge in placed.edges:  # an edge crosses a column only through its reserved lane
        for column, y in edge.lanes:
            for box in boxes:
                if box.column == column:
                    assert not (box.y - 1 <= y <= box.y + box.h + 1), (
                        edge.source,
                        edge.target,
                        box.id,
                    )
    for i, a in enumerate(boxes):
        assert a.x >= 0 and a.x + a.w <= placed.width and a.y >= 0 and a.y + a.h <= placed.height
        for row in a.rows:
            assert a.y < row.y and row.y + row.height <= a.y + a.h
        for b in boxes[i + 1 :]:
            assert not a.overlaps(b), (a.id, b.id)


@st.composite
def dags(draw) -> Tree:
    """Random valid trees: questions in topological order, each option pointing forward."""
    n_questions = draw(st.integers(1, 30))
    n_results = draw(st.integers(1, 30))
    results = [f"r{i}" for i in range(n_results)]
    questions = [f"q{i}" for i in range(n_questions)]
    built: dict[str, TreeQuestion] = {}
    for i, qid in enumerate(questions):
        later = questions[i + 1 :] + results
        targets = draw(st.lists(st.sampled_from(later), min_size=2, max_size=5))
        label = draw(st.text(alphabet="abc defghij", min_size=1, max_size=70))
        options = tuple(TreeOption(f"{label} {k}", (f"v{k}",), t) for k, t in enumerate(targets))
        built[qid] = TreeQuestion(qid, "f", label, label, options)
    reachable, stack = set(), ["q0"]
    while stack:
        node = stack.pop()
        if node not in reachable:
            reachable.add(node)
            stack.extend(o.next for o in built[node].options) if node in built else None
    tree_results = {
        r: TreeResult(r, ("Engine " * draw(st.integers(1, 4)),), Verdict.RECOMMENDED, "", "", "")
        for r in results
        if r in reachable
    }
    tree_questions = {q: built[q] for q in questions if q in reachable}
    return Tree("t", "T", "S", "q0", {}, tree_questions, tree_results, 1, Path("x.md"))


@settings(max_examples=150, deadline=None)
@given(dags())
def test_layout_places_every_node_without_overlap(tree):
    placed = layout(tree)
    assert set(placed.boxes) == set(tree.questions) | set(tree.results)
    assert len(placed.edges) == sum(len(q.options) for q in tree.questions.values())
    for edge in placed.edges:
        assert placed.boxes[edge.source].column < placed.boxes[edge.target].column
    _assert_no_overlap(placed)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    CHART_PROBLEMS,
)
def test_chart_values_are_checked(tmp_path, old, new, expected):
    chart = (REPO_LESSONS / "01-kernels.md").read_text(encoding="utf-8")
    block = chart[chart.index("```chart") : chart.index("```", chart.index("```chart") + 3) + 3]
    assert old in block
    lines = messages(tmp_path, block.replace(old, new))
    assert len(lines) == 1 and lines[0].endswith(expected), lines
