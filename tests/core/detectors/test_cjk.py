"""Chinese, Japanese and Korean: the language rules read their lexicons, and tokens end where CJK text begins."""

from __future__ import annotations

from pathlib import Path

import pytest

from diylisis.core.detectors import DetectSettings, detect_text, is_blocking
from diylisis.core.detectors.lexicon import available_languages
from diylisis.edges.gitio.context import HostContext, PygitContext
from tests.conftest import commit, git

HOST = HostContext("github.com", "acme", "widgets")


def findings(text: str, context: object = HOST) -> list[tuple[str, str]]:
    found, _ = detect_text(text, context, DetectSettings())  # type: ignore[arg-type]
    return [(f.rule_id, f.token) for f in found]


def blocking(text: str) -> list[tuple[str, str]]:
    found, _ = detect_text(text, HOST, DetectSettings())
    return [(f.rule_id, f.token) for f in found if is_blocking(f)]


def test_chinese_and_japanese_ship_lexicons() -> None:
    assert {"zh", "ja", "ko"} <= set(available_languages())


@pytest.mark.parametrize(
    ("text", "rule", "token"),
    [
        ("修复导出\n\n本次会话里把导出改成了流式写入。", "DX101", "本次会话"),
        ("修复导出\n\n延续上一个會話的改动。", "DX101", "上一个會話"),
        ("修复导出\n\n按照之前讨论的方案改为分页。", "DX102", "按照之前讨论的方案"),
        ("修复导出\n\n按我们约定的格式输出。", "DX102", "按我们约定"),
        ("如上所述，导出改为分页\n\n游标在服务端保存。", "DX103", "如上所述"),
        ("修复导出\n\n放弃了之前的方案，改用游标。", "DX105", "之前的方案"),
        ("修复导出\n\n处理第2轮评审提出的意见。", "SI201", "第2轮评审"),
        ("修复导出\n\n完成任务#7的收尾。", "SI203", "任务#7"),
        ("修复导出\n\nClaude 审查发现了空指针。", "NP601", "Claude 审查"),
        ("修复导出\n\n两路独立调查得出同一结论。", "NP601", "两路独立调查"),
        ("修复导出\n\n用户决定：保留旧接口。", "NP602", "用户决定"),
        ("修复导出\n\n用戶已拍板，不再兼容旧格式。", "NP602", "用戶已拍板"),
        ("修复导出\n\n全部测试均通过。", "UC701", "全部测试均通过"),
        ("修复导出\n\n改动后 42 个测试全部通过。", "UC701", "42 个测试全部通过"),
        ("修复导出\n\n格式检查通过：无告警。", "UC701", "格式检查通过"),
        ("修复导出\n\n本地跑过，没问题。", "UC701", "本地跑过，没问题"),
        ("修复导出\n\n全量测试通过（12 个文件）。", "UC701", "全量测试通过"),
        ("修复导出\n\n验证：\n- 导出格式验证通过\n- 页面渲染正常", "UC701", "导出格式验证通过"),
        ("修复导出\n\n验证：\n- 导出格式验证通过\n- 页面渲染正常", "UC701", "页面渲染正常"),
        ("修复导出\n\n✅ 生产构建成功", "UC701", "生产构建成功"),
        ("修复导出\n\n改动已通过 lint 和单元测试验证。", "UC701", "已通过 lint 和单元测试验证"),
        ("修复导出\n\n前端现在可以正常构建。", "UC701", "现在可以正常构建"),
        ("修复导出\n\n测试结果：\n- TestExportRows: PASS", "UC701", "测试结果：\n- TestExportRows: PASS"),
        ("修复导出\n\n--bug=1023456 --user=张三 【导出】空文件", "SI203", "bug=1023456"),
        ("修复导出\n\n经测试，功能正常。", "UC701", "经测试，功能正常"),
        ("修复导出\n\n已在本地验证，结果无误。", "UC701", "已在本地验证，结果无误"),
    ],
)
def test_chinese_residue_is_found(text: str, rule: str, token: str) -> None:
    assert (rule, token) in findings(text)


@pytest.mark.parametrize(
    ("text", "rule", "token"),
    [
        ("エクスポートを修正\n\n前回のセッションで決めた形式に揃えた。", "DX101", "前回のセッション"),
        ("エクスポートを修正\n\n打ち合わせで決まった方針に合わせた。", "DX102", "打ち合わせで決まった"),
        ("エクスポートを修正\n\n先ほどの案に戻した。", "DX105", "先ほどの案"),
        ("エクスポートを修正\n\n第2回レビューの指摘を反映。", "SI201", "第2回レビュー"),
        ("エクスポートを修正\n\ngemini のレビューで見つかった漏れを直す。", "NP601", "gemini のレビュー"),
        ("エクスポートを修正\n\ncodex が指摘した境界条件を直す。", "NP601", "codex が指摘"),
        ("エクスポートを修正\n\nユーザーが決めた順序に並べ替える。", "NP602", "ユーザーが決めた"),
        ("エクスポートを修正\n\nテストが通った。", "UC701", "テストが通った"),
        ("エクスポートを修正\n\nすべてのテストがパスしました。", "UC701", "すべてのテストがパスしました"),
        ("エクスポートを修正\n\n既存テスト 9 件すべて pass。", "UC701", "9 件すべて pass"),
        ("エクスポートを修正\n\n動作確認済み。", "UC701", "動作確認済み"),
    ],
)
def test_japanese_residue_is_found(text: str, rule: str, token: str) -> None:
    assert (rule, token) in findings(text)


@pytest.mark.parametrize(
    "text",
    [
        "修复导出\n\n确保所有测试通过后再合并。",  # a condition, not a result
        "修复导出\n\n测试通过后自动发布。",
        "修复导出\n\n测试时通过环境变量传入路径。",  # 通过: by way of
        "修复导出\n\n修复编译不通过的问题。",
        "修复导出\n\n由用户决定是否开启压缩。",  # the product's user
        "修复导出\n\n按照约定，批量接口不带后缀。",  # by convention
        "修复导出\n\n用户选择文件后开始上传。",
        "修复登录\n\n获取当前会话的令牌时不再抛出异常。",  # login-session code
        "修复导出\n\n- [ ] 构建成功",  # a box still to tick
        "修复导出\n\n- 确保构建成功",
        "修复登录\n\n如果验证通过，返回令牌。",  # what the code does
        "修复登录\n\n登录验证通过后跳转首页。",
        "新增审查\n\n添加独立审查代理的定义。",  # an agent the change adds
        "修复导出\n\n两种方案一致时不再提示。",
        "修复导出\n\n经测试，空行在 Windows 上读作两个换行。",  # a finding, not a result
        "エクスポートを修正\n\nテストが通るように期待値を直した。",  # a purpose
        "エクスポートを修正\n\nユーザーが選択したファイルを開く。",
        "ログインを修正\n\n現在のセッションのトークンを更新する。",
    ],
)
def test_conditions_end_users_and_login_sessions_are_not_residue(text: str) -> None:
    assert findings(text) == []


@pytest.mark.parametrize(
    ("text", "rule", "token"),
    [
        ("내보내기 수정\n\nCI 통과.", "UC701", "CI 통과"),
        ("내보내기 수정\n\n`make lint` 통과", "UC701", "`make lint` 통과"),
        ("내보내기 수정\n\n오늘 세션에서 정리한 내용.", "DX101", "오늘 세션"),
        ("내보내기 수정\n\n경고 없음 확인.", "UC701", "경고 없음 확인"),
    ],
)
def test_korean_pass_claims_and_sessions_are_found(text: str, rule: str, token: str) -> None:
    assert (rule, token) in findings(text)


def test_a_korean_purpose_is_no_pass_claim() -> None:
    assert findings("내보내기 수정\n\nCI 통과하도록 설정을 바꿨다.") == []


def test_a_path_keeps_a_cjk_file_name_and_drops_the_words_after_it() -> None:
    assert findings("修复导出\n\n日志在 /tmp/导出.log，然后重跑") == [("EP505", "/tmp/导出.log")]
    assert findings("修复导出\n\n日志在/tmp/out.log然后重跑") == [("EP505", "/tmp/out.log")]
    assert findings("エクスポートを修正\n\n~/work/資料/メモ.md にまとめた") == [("EP506", "~/work/資料/メモ.md")]


def test_a_tracker_key_touching_chinese_text_is_found() -> None:
    assert ("SI206", "WID-31") in findings("修复WID-31中的问题")


@pytest.fixture
def tree(repo: Path) -> PygitContext:
    import pygit2

    commit(repo, "Add the exporter", {"src/export.py": "def export():\n    pass\n"})
    git(repo, "config", "remote.origin.url", "https://github.com/acme/widgets.git")
    return PygitContext(pygit2.Repository(str(repo)), "HEAD")


def test_a_tracked_path_inside_chinese_text_is_no_untracked_path(tree: PygitContext) -> None:
    assert findings("修复导出\n\n更新src/export.py的逻辑。", tree) == []
    assert findings("修复导出\n\n更新src/missing.py的逻辑。", tree) == [("EP507", "src/missing.py")]


def test_the_cjk_ranges_hold_each_script_and_its_punctuation() -> None:
    import re

    from diylisis.core.cjk import CJK_LETTERS, CJK_PUNCTUATION, HAN, HANGUL, KANA

    for ranges, inside, outside in (
        (HAN, "汉漢㐀", "かカ한a"),
        (KANA, "かカㇰ", "汉한a"),
        (HANGUL, "한ㄱᄀ", "汉かa"),
        (CJK_LETTERS, "汉かカ한ㄱ", "aé。，"),
        (CJK_PUNCTUATION, "、。「」（），：", "汉か한a."),
    ):
        pattern = re.compile(f"[{ranges}]")
        assert all(pattern.fullmatch(c) for c in inside), inside
        assert not any(pattern.fullmatch(c) for c in outside), outside
