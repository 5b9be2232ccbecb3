"""Chinese, Japanese and Korean residue found by its shape: measured results with no recipe, checks with a
bare verdict, private reviews, hearsay and quoted requests, and agent logs on the forge; with near misses
that are not residue."""

from __future__ import annotations

import pytest

from diylisis.core.detectors import DetectSettings, detect_text, is_blocking
from diylisis.edges.gitio.context import HostContext

HOST = HostContext("github.com", "acme", "widgets")


def blocking(text: str) -> list[tuple[str, str]]:
    found, _ = detect_text(text, HOST, DetectSettings())
    return [(f.rule_id, f.token) for f in found if is_blocking(f)]


@pytest.mark.parametrize(
    ("text", "rule", "token"),
    [
        # a measured strength or speed, hedged or not, with no recipe to repeat it
        ("評価関数を調整\n\n枝刈りを外すとR8くらい弱くなる。", "UC701", "R8くらい弱くなる"),
        ("評価関数を調整\n\n定跡を変えたら +R15程度、上がりました。", "UC701", "+R15程度、上がりました"),
        ("評価関数を調整\n\nこの分岐のせいでElo 12ほど損をしている模様。", "UC701", "Elo 12ほど損をしている模様"),
        ("キャッシュを追加\n\n起動が4%ほど速くなった。", "UC701", "4%ほど速くなった"),
        ("キャッシュを追加\n\n読み込みは2倍速くなりました。", "UC701", "2倍速くなりました"),
        ("キャッシュを追加\n\n10ms前後短縮した。", "UC701", "10ms前後短縮した"),
        ("探索を整理\n\n古い表を消しても棋力はほとんど変わらなかった。", "UC701", "棋力はほとんど変わらなかった"),
        ("探索を整理\n\n速度が少し向上しました。", "UC701", "速度が少し向上しました"),
        ("探索を整理\n\n勝率は明らかに下がった。", "UC701", "勝率は明らかに下がった"),
        # a check and its verdict, no output
        ("設定を修正\n\nlint OK、型チェックも問題なし。", "UC701", "lint OK"),
        ("設定を修正\n\nlint OK、型チェックも問題なし。", "UC701", "型チェックも問題なし"),
        ("設定を修正\n\n`make check` が通ることを確認しました。", "UC701", "`make check` が通ることを確認しました"),
        ("設定を修正\n\nビルドが全て成功することを確認済み。", "UC701", "ビルドが全て成功することを確認済み"),
        ("設定を修正\n\n変更後も期待通りに動作することを確認できました。", "UC701",
         "期待通りに動作することを確認できました"),
        ("設定を修正\n\nWindows でも問題なく動きました。", "UC701", "問題なく動きました"),
        ("設定を修正\n\n型チェック結果：OK", "UC701", "型チェック結果：OK"),
        ("修复配置\n\n改完后全流程跑通了。", "UC701", "全流程跑通了"),
        ("修复配置\n\n编译没问题，可以合并。", "UC701", "编译没问题"),
        ("修复配置\n\n签名校验通过。", "UC701", "签名校验通过"),
        ("설정 수정\n\nlint: 통과함", "UC701", "lint: 통과함"),
        ("設定を修正\n\nテストは全件パス。", "UC701", "テストは全件パス"),
        ("設定を修正\n\n検証環境で確認済み。", "UC701", "検証環境で確認済み"),
        ("設定を修正\n\n挙動を検証しました。", "UC701", "挙動を検証しました"),
        ("修复配置\n\n- 单测：全部通过", "UC701", "- 单测：全部通过"),
        ("설정 수정\n\n로컬에서 테스트함.", "UC701", "로컬에서 테스트함"),
        ("修复配置\n\n类型检查零错误，eslint 无警告。", "UC701", "类型检查零错误"),
        ("修复配置\n\n类型检查零错误，eslint 无警告。", "UC701", "eslint 无警告"),
        ("設定を修正\n\nコンパイル警告は出ませんでした。", "UC701", "コンパイル警告は出ませんでした"),
        ("설정 수정\n\n타입 오류 0건.", "UC701", "타입 오류 0건"),
        ("設定を修正\n\n- [x] 単体テストが通った", "UC703", "- [x] 単体テストが通った"),
        # the record speaks to someone in the conversation, or points at another sitting
        ("修复配置\n\n按您建议的，把超时改成可配置。", "DX102", "按您建议的"),
        ("修复配置\n\n您之前提到的情况已处理。", "DX102", "您之前提到的情况"),
        ("設定を修正\n\n仰る通り、古い引数を消した。", "DX102", "仰る通り"),
        ("設定を修正\n\n残りは別セッションで片付ける。", "DX101", "別セッション"),
        # a private review or analysis narrated
        ("設定を修正\n\nGemini にチェックさせたところ、境界の漏れが見つかった。", "NP601", "Gemini にチェックさせ"),
        ("設定を修正\n\nCursor の指摘で未使用の引数を消した。", "NP601", "Cursor の指摘"),
        ("設定を修正\n\nセルフレビューの結果、名前を揃えた。", "NP601", "セルフレビューの結果"),
        ("修复配置\n\n请 Cursor 复核了一遍。", "NP601", "请 Cursor 复核"),
        ("설정 수정\n\n세션 회고에서 나온 누락을 채운다.", "NP601", "세션 회고에서"),
        # what someone said or asked off the record
        ("表示を修正\n\nお客様から「一覧を日付順にしてほしい」と頼まれたので並べ替えた。", "NP602",
         "お客様から「一覧を日付順にしてほしい」と頼まれ"),
        ("表示を修正\n\nこのボタンは前からあれこれ言われていた。", "NP602", "あれこれ言われていた"),
        ("表示を修正\n\n余白が狭すぎるとの指摘をもらった。", "NP602", "との指摘をもらった"),
        ("修复导出\n\n用户要求：“导出时保留空行”。", "NP602", "用户要求："),
        ("修复导出\n\n应用户要求去掉了分页。", "NP602", "应用户要求"),
        ("修复导出\n\n根据用户建议调整列宽。", "NP602", "根据用户建议"),
        ("修复导出\n\n和用户商量后保留旧列。", "NP602", "和用户商量后"),
        ("表示を修正\n\nお客様と協議の上、列を減らした。", "NP602", "お客様と協議の上"),
        ("表示を修正\n\n依頼された通りに列を並べた。", "NP602", "依頼された通り"),
        ("API を変更\n\n要望された方針に合わせて API を変更した。#34 とは別件。", "NP602", "要望された方針"),
        ("표시 수정\n\n사용자와 협의한 순서로 정렬한다.", "NP602", "사용자와 협의한"),
        ("修复导出\n\n用户反馈“分页太慢”，改为游标。", "NP602", "用户反馈"),
        ("修复导出\n\n用戶提出「保留舊欄位」。", "NP602", "用戶提出"),
        # Korean puts the verb last: a ticked item ending in "확인" says a check was done
        ("로그인 화면\n\n### 점검\n- [x] 비밀번호 오류 메시지 확인\n- [x] 자동 로그인 유지 검증", "UC703",
         "- [x] 비밀번호 오류 메시지 확인"),
        ("로그인 화면\n\n### 점검\n- [x] 비밀번호 오류 메시지 확인\n- [x] 자동 로그인 유지 검증", "UC703",
         "- [x] 자동 로그인 유지 검증"),
        # a work log quoting the request, a check the user ran, a live run that passed
        ("## 작업 기록\n\n- **요청 내용**: 목록을 이름순으로 정렬해 달라", "NP602", "- **요청 내용**:"),
        ("정렬 수정\n\n사용자 실기기 확인 결과를 회귀 테스트로 고정한다.", "NP602", "사용자 실기기 확인"),
        ("정렬 수정\n\n실서버 연동 검증이 통과한 뒤 캐시를 켠다.", "UC701", "실서버 연동 검증이 통과한"),
        # Chinese counts and verdicts with no output behind them
        ("修复导出\n\n通过用例: 120 → 134", "UC701", "通过用例: 120"),
        ("修复导出\n\n新加的用例全过。", "UC701", "新加的用例全过"),
        ("修复导出\n\n改完后单测都过了。", "UC701", "改完后单测都过了"),
        ("修复导出\n\n改完后现在能正常过 App Store 审核。", "UC701", "能正常过 A"),
        ("修复导出\n\n- parser.spec.js 现在能跑", "UC701", "parser.spec.js 现在能跑"),
        ("修复导出\n\n完成度约 80%", "UC701", "完成度约 80%"),
    ],
)
def test_residue_of_these_shapes_blocks(text: str, rule: str, token: str) -> None:
    assert (rule, token) in blocking(text)


@pytest.mark.parametrize(
    "text",
    [
        # guesses, conditions, allowances and settings are no measured result
        "評価関数を調整\n\nこれでR3ぐらい上がるかもしれない。",
        "評価関数を調整\n\nR2か3は失うと思う。",
        "評価関数を調整\n\n2%以内の低下なら採用する。",
        "評価関数を調整\n\n1%程度の速度低下は許容する。",
        "キャッシュを追加\n\nタイムアウトを30秒に短縮。",
        "キャッシュを追加\n\n性能を向上させるため、結果を保持する。",
        "キャッシュを追加\n\n5%ほど速くなるはず。",
        # a check still to pass, or a step of a plan
        "設定を修正\n\nテストOKになるまで再実行する。",
        "設定を修正\n\n- 既存のテストがすべてパスすることを確認",
        "設定を修正\n\n- 正常に動作することを確認する",
        "設定を修正\n\n正常に動作している場合は何もしない。",
        "修复配置\n\n确保本地跑通再提交。",
        "修复配置\n\n检查编译是否没问题。",
        "修复登录\n\n签名校验通过后写入会话。",
        "설정 수정\n\nlint 통과하도록 규칙을 바꿨다.",
        "ログインを修正\n\nセッション分析画面の表示を直す。",
        "로그인 수정\n\n세션 분석 대시보드에 필터를 추가한다.",
        "修复配置\n\n确保编译无报错再合并。",
        "設定を修正\n\n型エラーなしでビルドできることを目標にする。",
        # no errors or warnings as a goal to enforce, not a result
        "設定を修正\n\nlint の警告なしを CI で強制する。",
        "設定を修正\n\n型エラーなしをマージの条件にする。",
        "設定を修正\n\nビルドエラーゼロが目標。",
        "設定を修正\n\nコンパイル警告なしが必須になる。",
        "探索を修正\n\n別スレッドで読み筋を出す。",
        "ログインを修正\n\n別セッションIDを発行する。",
        "修复登录\n\n你的会话已过期时提示重新登录。",
        # what a product's user does, and a user's request the program serves
        "保存を修正\n\nユーザーが「保存」ボタンを押すと書き込む。",
        "保存を修正\n\nユーザーに「上書きしますか」と確認する。",
        "修复导出\n\n用户点击“导出”后生成文件。",
        "修复导出\n\n满足用户要求的导出格式。",
        "修复导出\n\n按用户要求的顺序排序。",
        "修复导出\n\n按照用户要求的格式输出。",
        "修复删除\n\n弹窗与用户确认后再删除。",
        "修复配置\n\n如果校验：失败则返回。",
        # a box that opens with "확인" names a thing built; tests that must pass are a goal
        "확인 창 추가\n\n- [x] 확인 버튼 추가\n- [x] 검증 로직 분리",
        "요청 처리\n\n요청 내용을 로그에 남긴다.",
        "로그인 수정\n\n사용자 확인 창을 띄운다.",
        "修复导出\n\n确保新增单测全过再合并。",
        "修复导出\n\n需要测试全过才能发布。",
        "修复导出\n\n为了能正常过 App Store 审核，去掉私有接口。",
        "修复导出\n\n进度条显示完成度。",
        # a request that names its public issue: the reader can read it there
        "API を変更\n\n#34 で要望された方針に合わせて API を変更",
        "API を変更\n\nIssue #120 にて依頼された内容を反映した。",
        "表示を修正\n\nhttps://github.com/acme/widgets/issues/8 で要望された通りに並べ替えた。",
        "表示を修正\n\n要望された方針（#56）に沿って列名を変えた。",
        "表示を修正\n\n依頼された内容は https://github.com/acme/widgets/issues/9 にある。",
        # a coding agent's log on the forge stays readable beside the repository (bench/corpus/README.md),
        # an agent log path that is a file of the repository, and a repository named sessions
        "ファイル移動を修正\n\nAgent-Logs-Url: https://github.com/acme/widgets/sessions/"
        "1f2e3d4c-aaaa-bbbb-cccc-0123456789ab\n\nCo-authored-by: Someone <someone@example.org>",
        "Update notes\n\nSee https://github.com/acme/widgets/blob/main/sessions/1f2e3d4c.md",
        "Update notes\n\nSee https://github.com/acme/sessions/pull/12",
    ],
)
def test_near_misses_do_not_block(text: str) -> None:
    assert blocking(text) == []


SVN_TRAILER = "git-svn-id: https://svn.example.org/widgets/trunk@4100 0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"


def test_a_number_in_a_record_imported_from_subversion_names_the_old_tracker() -> None:
    assert ("RF301", "#31337") in blocking(f"表示を修正\n\nチケット #31337\n\n{SVN_TRAILER}")


def test_the_same_number_in_a_record_written_on_the_forge_resolves() -> None:
    assert blocking("表示を修正\n\nチケット #31337") == []
    assert blocking("表示を修正\n\nチケット #31337\n\n旧リポジトリの git-svn-id: 行は消した") == []
