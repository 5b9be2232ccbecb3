"""Unverifiable claims: load-bearing results stated with no evidence or pointer to it (checklist 7)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from diylisis.core.detectors._match import lexicon_matches
from diylisis.core.detectors.rule import Rule
from diylisis.core.detectors.text import CODE_SPAN, Doc, quoted_output_near, titles_a_test_change
from diylisis.core.lazy_pattern import LazyPattern
from diylisis.core.model import Category, Finding

UNTICKED = LazyPattern(r"^\s*(?:[-*+]|\d+[.)])\s+\[ \]")
TICKED = LazyPattern(r"(?m)^[ \t]*(?:[-*+]|\d+[.)])[ \t]+\[[xX✓✔]\][ \t]+(?P<body>.+)$")
CI_LINK = LazyPattern(
    r"https?://\S*(?:/actions/runs/|/pipelines/|/jobs/|/builds?/|buildkite|circleci|travis-ci|/checks\b|ci\.)"
)
WHY = "states a result (tests, checks, measurements) the reader cannot see any evidence for"
FIX = "attach the output or a CI link, or drop the claim; the reader will rerun what matters"


# The claim's sentence sends the reader to an issue of the host where its evidence is kept: "see the
# screenshots attached to #2692" (RF301 reads the number itself; a link has to pass as a CI link).
_SEE_EVIDENCE = LazyPattern(r"(?i)(?<![\w-])see(?![\w-])[^.;]{0,60}?#\d+")


def _sentence_after(text: str, offset: int) -> str:
    """The text from offset to the end of its sentence (a stop before a blank, or a blank line)."""
    ends = [at for at in (text.find(stop, offset) for stop in (". ", ".\n", "\n\n")) if at >= 0]
    return text[offset : min(ends, default=len(text))]


def _evidenced(doc: Doc, offset: int) -> bool:
    """A CI link on the same line, a pointer to evidence in the sentence, or output quoted right after the
    claim, backs it."""
    line = doc.line_of(offset)
    if CI_LINK.search(line) or UNTICKED.match(line) or _SEE_EVIDENCE.search(_sentence_after(doc.text, offset)):
        return True
    if doc.position(offset)[0] in doc.status_lines:
        return False  # a status line in a fence: the fence closing below is no output
    first = doc.position(offset)[0] + 1
    after = doc.text[offset : offset + 400].split("\n")[1:4]
    if any(
        a.lstrip().startswith(("```", "~~~", "> ")) and first + index not in doc.status_lines
        for index, a in enumerate(after)
        if a.strip()
    ):
        return True
    return quoted_output_near(doc, offset)


def pass_claims(doc: Doc) -> Iterator[Finding]:
    """UC701: "all tests pass", "tests 86/86", "139 pass / 0 fail", "`npm run build` (pass)"."""
    for match in lexicon_matches(doc, "pass_claim", "claims"):
        if _evidenced(doc, match.start()) or _framed_as_no_claim(doc.claims, match.start(), match.end()):
            continue
        if _after_a_goal(doc.claims, match.start()) or _quotes_program_output(doc.claims, match.start(), match.end()):
            continue
        yield doc.finding("UC701", Category.UNVERIFIABLE_CLAIM, match.start(), match.end(), WHY, FIX)
    for start, end in _result_shapes(doc.claims):
        if _evidenced(doc, start) or _framed_as_no_claim(doc.claims, start, end):
            continue
        if _after_a_goal(doc.claims, start, _ASKED_GOAL_LEAD):
            continue
        if not _quotes_program_output(doc.claims, start, end):
            yield doc.finding("UC701", Category.UNVERIFIABLE_CLAIM, start, end, WHY, FIX)
    for start, end in _measurements(doc.prose, doc.text):
        if not _evidenced(doc, start) and not _quoted_lines_nearby(doc, start) and not _benchmark_named(doc, start):
            yield doc.finding("UC701", Category.UNVERIFIABLE_CLAIM, start, end, WHY, FIX)


# A verb of what a program puts out, right before a code span: "The reporter ends with `✓ 41 passed`", "it
# prints `All checks passed` and exits". The span quotes the program's output; it reports no run.
_OUTPUT_VERB_BEFORE = LazyPattern(
    r"(?i)(?<![\w-])(?:prints?|printing|ends with|outputs|displays?|emits?|renders?)"
    r"(?:[ \t]+(?:a|an|the|line|lines|message|summary|like|such as|something like|[\w-]+:)){0,3}"
    r"[ \t]*$"
)


# "... ends with `All 40 tests passed` on my machine": the author reports a run of their own
_ON_OWN_MACHINE = LazyPattern(r"(?i)\b(?:on my \w+|locally|here)\b")


def _quotes_program_output(view: str, start: int, end: int) -> bool:
    """The phrase between start and end lies in a code span that a verb of output introduces (see above)."""
    if "`" not in view[max(0, start - 80) : start + 1]:
        return False
    line_start = view.rfind("\n", 0, start) + 1
    line_end = view.find("\n", end)
    line = view[line_start : len(view) if line_end < 0 else line_end]
    for span in CODE_SPAN.finditer(line):
        if span.start() + line_start <= start and end <= span.end() + line_start:
            return (_OUTPUT_VERB_BEFORE.search(line[: span.start()]) is not None
                    and _ON_OWN_MACHINE.search(line[span.end() :]) is None)
    return False


# The shapes of a result claim, in English, whatever the phrasing: a check noun and a result
# word in one clause ("Parse regression OK", "TypeScript compilation: ✅ Passing", "Type check
# and build tests passed"), a count of runs that all passed ("12/12 regression", "39/39"), a
# ticked mark before a check noun.
_CHECK = (
    r"(?:tests?|(?:test )?suite|test run|specs?|checks|(?:type|security|lint|static|style|format|ci|health|sanity|"
    r"smoke|quality) check"
    r"|builds?|lint(?:ing|er)?|type[- ]?check(?:s|ing)?|typecheck(?:s|ing)?"
    r"|compil(?:ation|es|ed)|ci|regressions?|smoke|e2e|pipeline|validation|tsc|clippy|eslint|mypy|ruff|pytest"
    r"|jest|vitest|rspec|phpunit)"
)
_RESULT = (
    r"(?:pass(?:es|ed|ing)?|succeed(?:s|ed)?|success(?:ful(?:ly)?)?|green|ok|okay|(?:with )?(?:zero|no|0) "
    r"(?:errors|warnings|failures|issues)|without (?:any )?(?:errors|warnings|failures|issues)|[✅✔☑]\uFE0F?)"
)
# What every shape holds, as plain literals the rule's prefilter looks for ("/" for a lone count).
SHAPE_NEEDS = LazyPattern(
    r"(?i)test|suite|spec|check|build|lint|compil|ci|regression|smoke|e2e|pipeline|validat|tsc|clippy|mypy|ruff|jest|"
    r"rspec|phpunit|✅|✔|☑|verified|confirmed|an `|/|%|×|times|faster|slower|"
    r"quicker|speed|sped|improv|reduc|decreas|increas|drop|cut|shr|slow|lower|boost|shorten|better|worse|gain|saving|"
    r"less|fewer|more|higher|smaller"
)
_CLAUSE_RESULT = LazyPattern(
    rf"(?i)(?<![\w./-])(?P<check>{_CHECK})(?![\w-])(?P<between>[^.;!?\n]{{0,40}}?)(?<![\w-])(?P<result>{_RESULT})"
    r"(?![\w-])(?=(?P<after>[^\n]{0,24}))"
)
_MARK_FIRST = LazyPattern(rf"(?i)[✅✔☑]\uFE0F?\s*(?:[\w`'./-]+\s+){{0,4}}?{_CHECK}(?![\w-])")
_FRACTION = LazyPattern(
    rf"(?i)(?<![\w/.])(?P<done>\d{{1,5}})\s?/\s?(?P<of>\d{{1,5}})(?![\w/]|\.\d)"
    rf"(?:\s+(?:[\w-]+\s+){{0,3}}?(?:{_CHECK}|cases|passing|pass(?:ed)?|green)(?![\w-]))?"
)
# One test's number before a pair: "test 800/847" and "test1983/1984" name two tests, not runs passed.
_TEST_NUMBER_LEAD = LazyPattern(r"(?i)(?<![\w-])test ?$")
_TEST_NUMBERS = LazyPattern(r"(?i)^test ?(?P<one>\d+)\s*/\s*(?P<two>\d+)$")
# A table's cell border stands where a colon would: "| Parser regression | 12/12 |" is "Parser regression: 12/12".
_FRACTION_LEAD = LazyPattern(
    rf"(?i)(?:{_CHECK}|sweep|suite|run|cases)(?:\*\*)?\s*[:|]?\s*(?:(?!(?:for|of|in|on|with|and|or)\s)[\w-]+\s+)?$"
)
# Words in the clause that make the result a goal, a condition or a negation, not a claim
# ("make the tests pass", "until CI is green", "tests that pass by accident", "build no longer passes").
_NOT_A_CLAIM = LazyPattern(
    r"(?i)(?<![\w-])(?:should|must|will|would|could|can|cannot|might|may|need|needs|to|make|makes|making|ensure|ensures|"
    r"until|if|when|whenever|whether|unless|once|not|no longer|never|that|which|so|keep|keeps|let|get|gets|expect|"
    r"expected|fail|fails|failed|failing|broke|broken|only|add|adds|added|new|without|fix|fixes|fixed|verify|verifies)"
    r"(?![\w-])|n't"
)
# After a pass verb, what shows a result (end of clause, "now", "on Linux") rather than an object
# ("the build passes -O2 to the linker", "passes the flag through").
_PASS_ENDS = LazyPattern(
    r"(?i)^(?:\s*(?:$|[.,;:!)(]|[—–] |-- )|\s(?:now|again|locally|cleanly|successfully|fine|on|with|under|"
    r"after|for|across|against|at|in (?:ci|both|all|every|each)|"
    r"and|but|all|everywhere|here|too|as well)(?![\w-])|\s\d)"
)
_NARRATIVE_AFTER = LazyPattern(r"(?i)^[^.;\n]{0,12}?,\s*(?:but|which|yet|although|though|even|only)(?![\w-])")
_BEFORE_GOAL = LazyPattern(
    r"(?i)(?<![\w-])(?:make|makes|making|made|ensure|ensures|so|to|get|gets|until|if|when|whether|let|lets|keep|keeps|"
    r"help|helps|should|must|will|can|would|could|fix|fixes|fixed|once)\s+(?:[\w`'-]+\s+){0,3}$"
)


# A short noun phrase closed by a participle, as a list item or a sentence: "Local install verified",
# "Backwards compatibility confirmed". ("Works correctly" is not read: it describes behaviour far more
# often than it claims a check.)
_PARTICIPLE_CLAIM = LazyPattern(
    r"(?im)(?:^[ \t]*+(?:(?:[-*+•]|\d+[.)]|[✅✔☑]\uFE0F?)[ \t]+)?|(?<=[.!?;])[ \t]++|(?<=\())"
    r"(?P<claim>(?:[\w/.`'-]+[ \t]+){1,4}(?:verified|confirmed|tested|validated))(?=[ \t]*(?:$|[.,;:!)]))"
)
# A parenthesized check with nothing it was checked by: "(verified live)", "(tested manually)",
# "(confirmed locally)". One that names its test or recipe ("(tested in t7001)", "(verified with `make
# check`)") or hedges ("(not yet tested)") is left to the tests below.
_PAREN_CHECK = LazyPattern(
    r"(?i)\((?P<claim>(?:verified|tested|confirmed|validated)(?:[ \t]+(?:live|locally|manually|by hand|"
    r"end-to-end|e2e|in production|in prod|on staging|on device|on hardware|again|too|as well|myself)){1,2})\)"
)
# A subjectless report of a command run, with nothing of its output: "Ran `make check` for the CLI."
_RAN_COMMAND = LazyPattern(r"(?m)(?:^[ \t]*+(?:[-*+•][ \t]+)?|(?<=[.!?;])[ \t]++)(?P<ran>(?:Ran|Re-?ran|"
                           r"Reran) `[^`\n]+`)")
# A goal, a condition or a negation in the phrase: "not yet verified", "to be confirmed".
_HEDGE = LazyPattern(
    r"(?i)(?<![\w-])(?:not|never|needs?|should|must|will|would|to|yet|only|if|when|so|that|until|unless|make|makes|"
    r"ensure|ensures|whether)(?![\w-])|n't"
)
# A participle after a form of "be" or "have", or a qualified one, describes ("was tested on Linux", "lightly tested").
_DESCRIBED = LazyPattern(r"(?i)(?<![\w-])(?:be|been|being|is|are|was|were|has|have|had|lightly|barely|"
                         r"partially|hardly)(?![\w-])")


# Substrings without which a shape cannot match (in the lower-cased view): finding them is far cheaper
# than a scan with the shapes' patterns, and most records hold none of them.
_RESULT_HINT = LazyPattern(
    r"pass|succe|green|ok|zero |no (?:err|warn|fail|iss)|0 (?:err|warn|fail|iss)|out (?:any )?(?:err|warn|fail|iss)"
    r"|✅|✔|☑"
)
_PARTICIPLES = ("verified", "confirmed", "tested", "validated")
_MARKS = ("✅", "✔", "☑")


def _result_shapes(view: str) -> Iterator[tuple[int, int]]:
    """Spans of result claims found by their shape in a view (see the patterns above)."""
    low = view.lower()
    # only the lines holding a result word are searched, each with the line it continues ("31 parser
    # tests\npass."): a clause spans a wrapped line, never a line that ends a sentence or a list item
    searched = -1
    for hint in _RESULT_HINT.finditer(low):
        if hint.start() < searched:
            continue
        start = view.rfind("\n", 0, hint.start()) + 1
        end = view.find("\n", hint.start())
        searched = end = len(view) if end < 0 else end
        wrapped = _wrapped_from(view, start)
        line = view[wrapped:start].replace("\n", " ") + view[start:end]
        for begin, finish in _clause_results(line):
            if wrapped + finish > start:  # a clause on the line before alone was read with that line
                yield wrapped + begin, wrapped + finish
    if any(mark in view for mark in _MARKS):
        for match in _MARK_FIRST.finditer(view):
            yield match.start(), match.end()
    if "an `" in view:
        for match in _RAN_COMMAND.finditer(view):
            yield match.span("ran")
    if any(word in low for word in _PARTICIPLES):
        for match in _PAREN_CHECK.finditer(view):
            yield match.span("claim")
        for match in _PARTICIPLE_CLAIM.finditer(view):
            if not _HEDGE.search(match.group("claim")) and not _DESCRIBED.search(match.group("claim")):
                yield match.span("claim")
    if "/" in view:
        yield from _fractions(view)


# A line that opens a list item, a heading, a table row or a quote: no sentence wraps into it.
_ITEM_START = LazyPattern(r"[ \t]*(?:[-*+•#|>]|\d+[.)])")


def _wrapped_from(view: str, start: int) -> int:
    """Where the line before the one at start begins when a sentence wraps from it into this one (it
    holds words and ends in no stop, and this line opens no item); else start."""
    if start < 2 or _ITEM_START.match(view, start):
        return start
    previous = view.rfind("\n", 0, start - 1) + 1
    before = view[previous : start - 1].rstrip()
    if not before.strip() or before.endswith((".", "!", "?", ":", ";")) or before.lstrip().startswith("#"):
        return start
    return previous


def _clause_results(line: str) -> Iterator[tuple[int, int]]:
    """A check noun and a result word in one clause of a line, not a goal, a condition, an object or a story."""
    for match in _CLAUSE_RESULT.finditer(line):
        result = match.group("result").lower()
        if _NOT_A_CLAIM.search(match.group("between")):
            continue
        if result[0].isalpha() and not result.startswith(("zero", "no ", "0 ", "with")) and not _PASS_ENDS.search(
            match.group("after")
        ):
            continue  # "passes the flag to the linker", "success message": an object follows, not a result
        if _NARRATIVE_AFTER.search(match.group("after")):
            continue  # "the test passed, but the live site crashed": the story of a bug, not a claim
        if re.search(r":\S|[()\[\]\"“”]", match.group("between")):
            continue  # "check:all" names a script; "(tests, CI) and a result word (passed" lists words
        if _BEFORE_GOAL.search(line[max(0, match.start() - 40) : match.start()]):
            continue
        yield match.start(), match.end("result")


def _fractions(view: str) -> Iterator[tuple[int, int]]:
    """A count of runs: a check word before or after it, or all of them passing ("39/39", not "17/17 tasks")."""
    for match in _FRACTION.finditer(view):
        done, of = int(match.group("done")), int(match.group("of"))
        if done > of or of < 2:
            continue
        lead = view[max(0, match.start() - 40) : match.start()].rsplit("\n", 1)[-1]
        if done != of and _TEST_NUMBER_LEAD.search(lead):
            continue
        led = _FRACTION_LEAD.search(lead)
        followed = match.end() > match.end("of")
        alone = re.match(r"\s*(?:$|[.,;:!?)])", view[match.end() :]) is not None
        if led or followed or (done == of and of >= 3 and alone):
            yield match.start(), match.end()


# The shape of a measured result, whatever was measured: a ratio and a comparison ("a ~20% improvement",
# "2.8-4.4x speed improvement", "about 10x slower"), a cost measure changed by a ratio ("dropped execution
# time of the rebase by 2%", "cuts memory use by 40%"), or a ratio that went from one value to another
# ("improved from 88.89% to 96.67%").
_RATIO = (r"(?:~\s?|(?:about|around|roughly|nearly|almost|over|"
          r"some) )?\d+(?:\.\d+)?(?:\s?[-–]\s?\d+(?:\.\d+)?)?\s?(?:%|x(?![\w-])|×|times(?![\w-]))")
_COMPARISON = (
    r"(?:improvement|speed-?ups?|faster|slower|quicker|reduction|slowdown|better|worse|gain|boost|savings?|"
    r"(?:less|fewer|lower|smaller) (?:memory|cpu|time|latency|allocations|overhead|start-?up|ram|i/o|calls|disk))"
)
_COST = (r"(?:time|times|runtime|run-?time|latency|memory|speed|throughput|cpu|usage|overhead|allocations|"
         r"start-?up|footprint|size)")
_MEASURED = LazyPattern(
    rf"(?i)(?<![\w.$/:=-])(?P<ratio>{_RATIO})[ \t]+(?:[\w-]+[ \t]+){{0,2}}?{_COMPARISON}(?![\w-])"
    rf"|(?<![\w-])(?:improv|speed|sped|reduc|decreas|increas|drop|cut|shr[iu]nk|slow|lower|boost|shorten)[a-z]*"
    rf"(?:[ \t]+(?:up|down))?(?=(?:[^.;!?\n]|\n(?![ \t]*\n)){{0,60}}?{_COST})(?:[^.;!?\n]|\n(?![ \t]*\n)){{0,80}}?"
    rf"(?<![\w-])by[ \t]+(?P<by>{_RATIO})"
    rf"|(?<![\w-])(?:improv|went|drop|reduc|increas|decreas|rose|fell|grew|shr[iu]nk)[a-z]*[ \t]+from[ \t]+"
    rf"\d+(?:\.\d+)?\s?%[ \t]+to[ \t]+\d+(?:\.\d+)?\s?%"
)
# In every _MEASURED match: a ratio's last digit, then its unit (_RATIO, and the "from 88% to 96%" form).
_RATIO_HINT = LazyPattern(r"(?i)\d\s?(?:%|x|×|times)")
# Words before the ratio in its clause that make it a goal, a limit or a condition ("should be 2x
# faster", "aim for a 20% reduction", "could cut memory by half", "if it is 10x slower").
_MEASURE_HEDGE = LazyPattern(
    r"(?i)(?<![\w-])(?:should|must|will|would|could|can|might|may|aim|aims|target|targets|goal|expect|expected|"
    r"if|when|unless|until|whether|hope|hopefully|try|trying|want|need|needs|not|estimate|estimates|estimated|"
    r"projected|predicted|potential|potentially|theoretical|theoretically)(?![\w-])|n't"
)
# A line that introduces the measurements below it by naming the benchmark ("Benchmark (single-threaded,
# the Chromium file list):", "Timings on a 4-core laptop:"): the claim states what was measured, on what.
_BENCHMARK_LEAD = LazyPattern(r"(?i)(?<![\w-])(?:benchmark(?:s|ed)?|measured|measurements?|timings?|"
                              r"hyperfine|perf)(?![\w-])[^\n]*:[ \t]*$")
_QUOTED_NEARBY = 8  # lines either side of a measurement that quoted output (a benchmark's table) may take


# Where the measurement ran, when that is the author's own machine ("On my machine, this gives a ~20%
# improvement", "about 2x faster locally"). Careful histories state measured ratios all the time, most
# of them with a benchmark's output or a setup anyone can rerun; a ratio measured on the author's
# machine, with nothing quoted, is the claim only the author can check.
_PRIVATE_RUN = LazyPattern(
    r"(?i)(?<![\w-])(?:(?:on|with|using) (?:my|our) (?:own |local |dev |work )?(?:machine|laptop|desktop|box|computer|"
    r"system|setup|workstation|hardware|mac|macbook|pc|server)s?|(?:measured|ran|run|tested|benchmarked|"
    r"timed|profiled) (?:it |this |them )?locally"
    r"|(?:faster|slower|quicker|better|worse|smaller) locally"
    r"|in my (?:tests|testing|benchmarks|runs|measurements))(?![\w-])"
)
# A ratio the clause gives as the purpose of the change ("to cut load time by 40%"): a goal, not a result.
_PURPOSE = LazyPattern(r"(?i)(?<![\w-])to (?:[\w-]+ ){0,2}$")


# What names a recipe for a figure on its line or the line before: a command in backticks, a shell prompt, a benchmark,
# a profiler or a timing tool, a script path. A figure with one of these beside it can be rerun.
_RECIPE = LazyPattern(
    r"(?i)`|^\s*\$ |(?<![\w-])(?:bench(?:mark)?(?:s|ed|ing)?|perf|hyperfine|strace|ltrace|valgrind|callgrind|"
    r"massif|time|timings?|measured|measurements?|profil(?:e|ed|er|ing)|flamegraph|criterion|pytest-benchmark|"
    r"run(?:ning)?|ran|reproduc(?:e|ed|ible)|script|command|on (?:the |a )?(?:linux|kernel|chromium|\d))(?![\w-])"
    r"|\w/\w+\.\w+|\bt/p\d"
)
# A comparison stated as a ratio ("100x speedup", "16x faster", "from 88% to 96%"), not a cost cut "by" one.
# A cost owned up to ("about 5% slower") is left to the private-run test: careful histories report
# their regressions this way, and a reviewer weighs them against the diff.
_COMPARED = LazyPattern(rf"(?i)^(?:{_RATIO})(?!.*(?:slower|worse|slowdown))|from[ \t]+\d")


def _near_lines(text: str, offset: int) -> str:
    """The line holding offset and the line before it (a lead such as "Benchmark, 4 runs:")."""
    start = text.rfind("\n", 0, max(0, text.rfind("\n", 0, offset)))
    end = text.find("\n", offset)
    return text[start + 1 : len(text) if end < 0 else end]


def _measurements(view: str, text: str) -> Iterator[tuple[int, int]]:
    """Spans of measured results stated as a ratio, in a sentence that says they were measured on the
    author's own machine, or a ratio compared with no recipe named on its line or the one before (see the patterns
    above), not goals or conditions."""
    if not _RATIO_HINT.search(view):
        return  # _MEASURED costs milliseconds to compile, and most records state no ratio
    private = _PRIVATE_RUN.search(view) is not None
    for match in _MEASURED.finditer(view):
        clause_start = max(view.rfind(stop, 0, match.start()) for stop in (". ", ".\n", ";", "!", "?", "\n\n")) + 1
        before = view[clause_start : match.start()]
        if _MEASURE_HEDGE.search(before + " " + match.group()) or _PURPOSE.search(before):
            continue
        ends = [at for at in (view.find(stop, match.end()) for stop in (". ", ".\n", "\n\n")) if at >= 0]
        opens = max(view.rfind(stop, 0, match.start()) for stop in (". ", ".\n", "\n\n")) + 1
        sentence = view[opens : min(ends, default=len(view))]
        if private and _PRIVATE_RUN.search(sentence):
            yield match.start(), match.end()
        elif _COMPARED.search(match.group()) and not _RECIPE.search(_near_lines(text, match.start())):
            yield match.start(), match.end()


def _quoted_lines_nearby(doc: Doc, offset: int) -> bool:
    """Quoted output (an indented transcript, a fenced block, a table) within a few lines of the claim:
    the measurement's evidence, as a benchmark's before-and-after table."""
    line = doc.position(offset)[0]
    quoted = doc.indented_lines | doc.output_lines
    return any(abs(number - line) <= _QUOTED_NEARBY for number in quoted)


def _benchmark_named(doc: Doc, offset: int) -> bool:
    """A line of the claim's paragraph, at or before it, introduces it by naming the benchmark."""
    paragraph_start = doc.text.rfind("\n\n", 0, offset) + 2 if "\n\n" in doc.text[:offset] else 0
    line_end = doc.text.find("\n", offset)
    lines = doc.text[paragraph_start : len(doc.text) if line_end < 0 else line_end].split("\n")
    return any(_BENCHMARK_LEAD.search(line) for line in lines[:-1])



# What frames a pass phrase as no claim. A goal or a conclusion before it ("so that all tests pass",
# "Get the tests passing again", "need to compile successfully", "So the performance impact is
# negligible"), a concession ("even though tests still pass"), a modal (below), a longer name it ends
# ("--no-chain-lint passed to"), a run counted as a noun ("for a second validation pass", "in a single
# pass", "after successful `try_recv`"), a negation ("does not build ...").
_GOAL_OR_CONCESSION = LazyPattern(
    r"(?i)(?<![\w-])(?:so|to|make|makes|making|get|gets|getting|until|once|if|when|whether|ensure|ensures|keep|keeps"
    r"|though|although)\s+(?:[A-Za-z`'-]+\s+){0,3}$"
)
# Where the clause holding a pass phrase begins: a blank line, a sentence's end, a list item.
_CLAUSE_START = LazyPattern(r"\n\s*\n|[.!?;:](?=\s)|\n[ \t]*(?:[-*+•]|\d+[.)])[ \t]")
# Where the conjunct holding the phrase begins: "Upgraded to pydantic and all tests pass" is a result
# after a goal-less first conjunct, though "to" opens the clause.
_CONJUNCTION = LazyPattern(r"\s(?:and|but)\s")
# A condition opening the clause governs each conjunct ("When the count exceeds the limit and all tests
# pass, ..."); one later in the clause only its own ("Fixed the crash when it is empty and all tests pass").
_LEADING_CONDITION = LazyPattern(r"(?i)^[\s\"'“(]*(?:if|when|whenever|unless|whether|until|once)(?![\w-])")
_COUNTED_RUN = LazyPattern(
    r"(?i)(?<![\w-])(?:a|an|the|one|another|first|second|third|final|last|next|extra|separate|full|quick)\s+"
    r"(?:[\w-]+\s+)?$"
)
# A condition or a hope earlier in the conjunct: "if the call is commented out, all tests still pass",
# "in the hope that our tests pass".
_CONDITION = LazyPattern(r"(?i)(?<![\w-])(?:if|when|whenever|unless|whether|until|hope|hoping)(?![\w-])")
# A modal earlier in the clause makes it an expectation ("should still compile successfully",
# "will merge this after your CI passes", "may still build successfully").
_MODAL = LazyPattern(r"(?i)(?<![\w-])(?:should|must|will|would|could|can|may|might|shall)(?![\w-])")
_ADJECTIVE_LEAD = LazyPattern(r"(?i)(?<![\w-])(?:a|an|the|each|every|any|after|before|on|upon|from|of|for|with)\s+$")
# "successful" before a code name, not a command: `try_recv`, `OwnedPermit::send` (not `npm run build`).
_SUCCESSFUL_CALL = LazyPattern(r"(?i)^successful `(?=[^`\s]*(?:::|_|\.|\(|[A-Z]))[^`\s]+`$")
# "which does not build binaries in the same pass": a negation right before, a pass counted as a noun.
_NEGATED = LazyPattern(r"(?i)(?<![\w-])(?:not|never|cannot)\s+(?:[A-Za-z-]+\s+)?$|n't\s+(?:[A-Za-z-]+\s+)?$")
_PASS_AS_NOUN = LazyPattern(
    r"(?i)(?<![\w-])(?:a|an|the|one|single|same|another|first|second|third|final|last|next|extra|separate)\s+pass$"
)
_SINGULAR_PASS = LazyPattern(r"(?i)^[\w-]*[^\Ws]\s+(?:pass|passing)$")
# What makes a match a result phrase: only those can be framed ("at $DAYJOB" never is).
_RESULT_WORD = LazyPattern(r"(?i)pass|succe|green|(?<![\w-])ok(?![\w-])|clean|negligible|minimal|[✅✔☑]")


# A check the clause asks for, before a phrase that holds no result word of its own ("Make sure all tests
# run without errors", "Check that all pages load without errors", "CI: verify all examples run ...").
_GOAL_LEAD = LazyPattern(
    r"(?i)(?<![\w./-])(?:make sure|ensure|ensures|check that|checks that|verify|verifies|so that|until|should|must|"
    r"need to|needs to)(?![\w./-])"
)


# The same for a result found by its shape, where a bare "verify" opens a note of what was checked ("verify
# 12 lint checks pass"): only a check asked for is a goal ("I need to verify that the suite passes").
_ASKED_GOAL_LEAD = LazyPattern(
    r"(?i)(?<![\w./-])(?:make sure|ensure|ensures|check that|checks that|so that|until|should|must|"
    r"(?:need|needs|have|has|want|wants) to|to (?:verify|check|confirm))(?![\w./-])"
)


def _after_a_goal(view: str, start: int, leads: LazyPattern = _GOAL_LEAD) -> bool:
    """The conjunct before start asks for the check (see _GOAL_LEAD) rather than reporting it."""
    clause = _CLAUSE_START.compiled().split(view[max(0, start - 60) : start])[-1]
    return leads.search(_CONJUNCTION.compiled().split(clause)[-1]) is not None


def _framed_as_no_claim(view: str, start: int, end: int) -> bool:
    """The pass phrase between start and end is a goal, a concession, part of a name or a noun."""
    numbers = _TEST_NUMBERS.match(view[start:end])
    if numbers:
        return numbers.group("one") != numbers.group("two")
    if not _RESULT_WORD.search(view[start:end]):
        return False
    clause = _CLAUSE_START.compiled().split(view[max(0, start - 60) : start])[-1]
    before = _CONJUNCTION.compiled().split(clause)[-1]
    if view[start - 1 : start] == "-" or _GOAL_OR_CONCESSION.search(before) or _MODAL.search(clause):
        return True
    if _CONDITION.search(before) or _LEADING_CONDITION.match(clause):
        return True
    if _SUCCESSFUL_CALL.match(view[start:end]) and _ADJECTIVE_LEAD.search(before):
        return True  # "after successful `try_recv`": what the code does, not a command the author ran
    if _NEGATED.search(before) or _PASS_AS_NOUN.search(view[start:end]):
        return True
    return bool(_SINGULAR_PASS.match(view[start:end]) and _COUNTED_RUN.search(before))


# A check that names the test doing it: "Verified by test 2119", "Verified in test1560", "Confirmed
# with the new test", "Tested in a following commit". The test is in the repository (or in this change or
# its series), where the reader runs it.
_NAMED_TEST = LazyPattern(
    r"(?i)(?:verified|tested|confirmed|validated)\s+(?:by|in|with|using)\s+"
    r"(?:tests?\s*\d+|the\s+(?:new|added)\s+(?:unit\s+|regression\s+)?tests?(?![\w-])"
    r"|(?:a|the)\s+(?:following|next|later|subsequent|separate)\s+(?:commit|patch)(?![\w-]))"
)


@functools.cache
def _opening(words: tuple[str, ...]) -> re.Pattern[str]:
    alternation = "|".join(re.escape(word) for word in words)
    # Subjectless past participle opening a sentence or list item: "Verified with X on". The
    # blank runs are possessive: a masked block is lines of spaces in the claims view, and
    # splitting one line's spaces between the two runs in every way cost time quadratic in its
    # length, for nothing (a word, not a blank, must follow). It reads as
    # (?:^[ \t]*(?:[-*+]|\d+[.)])?[ \t]*|(?<=[.!?;:])[ \t]+)(?P<claim>...)
    return re.compile(
        rf"(?im)(?:^[ \t]*+(?:[-*+]|\d+[.)])?[ \t]*+|(?<=[.!?;:])[ \t]++)(?P<claim>(?:{alternation})(?![\w-])[^.\n]*)"
    )


def _continues_sentence(doc: Doc, start: int) -> bool:
    """The claim word starts a wrapped line inside a sentence, not a sentence or list item."""
    line_start = doc.text.rfind("\n", 0, start) + 1
    if doc.text[line_start:start].strip():
        return False  # after punctuation or a list marker on the same line
    previous = doc.text[: max(line_start - 1, 0)].rsplit("\n", 1)[-1].rstrip()
    return bool(previous) and not previous.endswith((".", "!", "?", ":", ";")) and not previous.startswith("#")


# A check word labelling the commands that ran ("Tested: npm run lint; git diff --check", "Verified:
# `make check`") or to run ("Tested: run `make check` before pushing"): the label names the recipe, which
# the reader reruns; it states no result.
_RECIPE_LABEL = LazyPattern(
    r"(?i)(?:tested|verified|validated|checked)[ \t]*:[ \t]*(?:(?:run|use|try|execute|invoke)[ \t]+)?"
    r"(?:`|\$ |(?:npm|npx|yarn|pnpm|bun|bunx|deno|make|pytest|"
    r"python3?|uv|poetry|cargo|go|tox|nox|gradle|\./gradlew|mvn|dotnet|ruff|mypy|eslint|tsc|git|just|jest|vitest|"
    r"rspec|bundle|rake|mix|swift|ctest|prove|hatch|pre-commit|node|flutter|composer|phpunit|\./[\w./-]+)(?=[ \t;,]|$))"
)

# A result word after the commands ("Verified: make check, all green", "Tested: npm test, passes"): the label
# then reports how they went. "clean" after a command that takes it as a target ("make clean", "git clean")
# names the command.
_LABEL_RESULT = LazyPattern(
    r"(?i)[✅✔☑]|(?<![\w./:-])(?:green|pass|passes|passed|passing|ok|okay|succeeds?|succeeded|successful(?:ly)?|works|"
    r"fine|no (?:errors|warnings|failures))(?![\w-])"
    r"|(?<![\w./:-])(?<!make )(?<!git )(?<!cargo )(?<!just )(?<!run )(?<!gradle )(?<!mvn )clean(?![\w-])"
)


def _rest_of_line(view: str, start: int) -> str:
    end = view.find("\n", start)
    return view[start : len(view) if end < 0 else end]


def _outside_code(text: str) -> str:
    """text with its inline code spans blanked: a word in a command is part of the command."""
    return re.sub(r"`[^`\n]*`", " ", text)


def claim_openings(doc: Doc) -> Iterator[Finding]:
    """UC702: a sentence opening with "Verified …", "Tested …", "Measured …" and no evidence."""
    words = doc.lexicon.words("claim_opening")
    if not words:
        return
    opening = _opening(words)
    for match in opening.finditer(doc.claims):
        start, end = match.span("claim")
        if end - start < len(match.group("claim").split()[0]) + 3 or _evidenced(doc, start):
            continue
        if _continues_sentence(doc, start):
            continue  # "...and I\ntested that": a wrapped line, not a sentence start
        if titles_a_test_change(doc, start) or _NAMED_TEST.match(doc.claims, start):
            continue
        if _RECIPE_LABEL.match(doc.claims, start) and not _LABEL_RESULT.search(
            _outside_code(_rest_of_line(doc.claims, start))
        ):
            continue  # "Tested: npm run build": the commands, not a result
        yield doc.finding("UC702", Category.UNVERIFIABLE_CLAIM, start, end, WHY, FIX)


# After a check verb, what makes the item a thing added rather than a check run ("[x] Tested paths
# added to the fixture list", "[x] Verify step added to CI").
_ADDED_AFTER = LazyPattern(r"(?i)[\w ./`'-]{0,40}?(?<![\w-])(?:added|created|written|removed|updated)(?![\w-])")
# A check verb right before the name of an element of a user interface is that element's label ("[x] Verify
# button on the settings page", "[x] Confirm dialog for deletes"): an item built, not a check run.
_UI_ELEMENT_AFTER = LazyPattern(
    r"(?i)[ \t]+(?:button|link|tab|page|dialog|modal|menu|field|screen|icon|badge|toggle|checkbox|banner|label|"
    r"panel|form|card|tooltip|popup|popover|prompt|step|column|action|option|control|widget|flow|view)s?(?![\w-])"
)


def checklist_claims(doc: Doc) -> Iterator[Finding]:
    """UC703: ticked checklist boxes asserting a check passed ("[x] Tests pass locally")."""
    if "]" not in doc.claims:  # every ticked box closes its bracket
        return
    check = doc.lexicon.pattern("checklist_check")
    result = doc.lexicon.pattern("checklist_result")
    verb = doc.lexicon.pattern("checklist_verb")
    if (check is None or result is None) and verb is None:
        return
    for match in TICKED.finditer(doc.claims):
        body = match.group("body")
        asserted = bool(check is not None and result is not None and check.search(body) and result.search(body))
        if not asserted and verb is not None:
            item = body.lstrip("*_ ")
            opening = verb.match(item)
            asserted = (
                opening is not None
                and not _ADDED_AFTER.match(item, opening.end())
                and not _UI_ELEMENT_AFTER.match(item, opening.end())
            )
        if asserted and not _evidenced(doc, match.start("body")):
            yield doc.finding(
                "UC703",
                Category.UNVERIFIABLE_CLAIM,
                match.start() + (len(match.group()) - len(match.group().lstrip())),
                match.end(),
                "a ticked box asserts a check passed; the tick is not evidence",
                "link the CI run or paste the output; untick boxes the diff does not show",
            )


_DOC_PASS = """\
What it flags: claims that tests, checks or builds passed, or that a measurement came out
well, with no output or CI link: "All tests pass", "tests 86/86", "139 pass / 0 fail",
"`npm run build` (pass)", "Lint: clean", "performance impact is minimal", "profiling has
shown", "테스트 통과", "정적 검사 fail 0". Besides these phrases it reads the shape of a
result claim in English: a check noun (tests, build, lint, type check, compilation, CI,
regression) and a result word (passed, OK, green, successful, zero errors, without warnings, ✅) in
one clause, also one wrapped over two lines ("Parse regression OK", "TypeScript compilation: ✅
Passing", "the 18 pool tests\npass"), also where the author typed such
lines into a fence of their own (no language named, no look of a tool's output, some line in the
author's hand: a list item, a status emoji, a Title-Case label; not a fence the line above introduces
as what the program prints, "The command now prints:", "Example output:"); a run on CI with no link
("I tested the change on the project's CI"); a count of runs ("12/12
regression", "sweep 31/39", a lone "39/39", a table row "| Parser regression | 12/12 |"); a
check mark before a check noun; a measured
ratio in a sentence that places the run on the author's own machine ("On my machine this
gives a ~20% improvement", "about 3x faster locally"), unless a line of its paragraph names
the benchmark ("Benchmark (one thread, the kernel tree):"); a ratio compared with no
recipe on its line or the line before ("a 12x speedup", "7x faster loading", "improved
from 71% to 93%"), where a command in backticks, a benchmark, a timing tool or a script
path would let the reader rerun it (a cost owned up to, "about 5% slower", is left to the
private-run test); an evidence noun that "shows"
("real data showed", "performance testing shows"); "works perfectly", "looks perfect", "is
now fully functional", "three known failures";
"provides better stability"; a parenthesized check with nothing it was checked by
("(verified live)", "(tested manually)"), "verified empirically"; a run on something local
("local build and test via the emulator", "checked against local logs"). A goal, a
condition or a negation in the clause ("make the tests pass", "until CI is green", "no
longer passes"), an object after the verb ("passes the flag to the linker") and the story
of a bug ("the test passed, but the site crashed") are not claims, nor is a pass phrase framed as a goal
or a concession ("so that all tests pass", "even though tests still pass") or a noun ("a second
validation pass"). A claim followed by quoted output or a fenced block, a claim whose sentence ends in
a colon before quoted output ("Benchmarked on …:" and its table), with a CI link on its line, or whose
sentence sends the reader to the evidence on the host ("see the screenshots attached to #88"), is
evidenced. A pass phrase in a code span that a verb of output introduces ("the reporter ends with `✓ 12
passed`", "it prints `All checks passed`") quotes the program, and is no claim. Test counts that assert nothing
("Rust 197 tests") and unticked template boxes are not claims.

Why a fresh reader fails: the run happened on the author's machine; the reader cannot
tell what ran, on which revision, or whether it still holds.

Example: bad "All tests pass." good "CI: https://ci.example/runs/812 (green on this
commit)." or no claim at all.

Repair: attach the output or a CI link, or drop the claim.
"""

_DOC_OPENING = """\
What it flags: sentences or list items that open with a bare past participle claiming a
check: "Verified with …", "Tested by …", "Measured on …", "Confirmed …". The subject line
of a commit whose change adds or removes tests ("Tested the retry timeout") names those
tests and is not flagged, nor is a check label followed by the commands that ran or are to run
("Tested: npm run lint; git diff --check", "Tested: run `make check` before pushing"): that names
the recipe, and states no result.

Why a fresh reader fails: no subject, no output, no recipe to rerun: the claim cannot be
checked.

Example: bad "Verified against a live server." good "To check: run `make smoke` against
a server started with `make serve`; it prints OK on success."

Repair: give the recipe and the output, or drop the claim.
"""

_DOC_CHECKLIST = """\
What it flags: ticked checklist boxes that assert a test, build or lint passed: "[x] Tests
pass locally", "[x] `npm run lint` succeeds", "[x] Manual testing", and ticked items that
open with a check verb ("[x] Verify the links resolve", "[x] Confirm the page renders"). Unticked
boxes, ticked boxes the diff itself shows ("[x] Unit tests added", "[x] Verify step added
to CI") and a check verb that labels an element of a user interface ("[x] Verify button on the
settings page", "[x] Confirm dialog before deleting") are not flagged.

Why a fresh reader fails: a tick records the author's belief, not a run anyone can see.

Example: bad "- [x] All tests pass" good "- [x] Unit tests added for the empty-input case"

Repair: link the CI run, or untick the box.
"""

RULES = (
    Rule(
        id="UC701",
        name="pass-claim",
        category=Category.UNVERIFIABLE_CLAIM,
        languages=("en", "ko", "de", "zh", "ja"),
        summary="Claims tests or checks passed with no output or CI link ('All tests pass', '86/86').",
        doc=_DOC_PASS,
        detect=pass_claims,
        lexicon_keys=("pass_claim",),
        requires=("pass_claim", SHAPE_NEEDS),
    ),
    Rule(
        id="UC702",
        name="bare-verification",
        category=Category.UNVERIFIABLE_CLAIM,
        languages=("en",),
        summary="Sentences opening 'Verified …', 'Tested …' with no evidence.",
        doc=_DOC_OPENING,
        detect=claim_openings,
        lexicon_keys=("claim_opening",),
        requires=("claim_opening",),
    ),
    Rule(
        id="UC703",
        name="ticked-check",
        category=Category.UNVERIFIABLE_CLAIM,
        languages=("en", "ko", "zh", "ja"),
        summary="Ticked checklist boxes asserting a check passed ('[x] Tests pass').",
        doc=_DOC_CHECKLIST,
        detect=checklist_claims,
        lexicon_keys=("checklist_check", "checklist_result", "checklist_verb"),
        requires=("checklist_check", "checklist_verb"),
    ),
)
