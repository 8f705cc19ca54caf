import pytest

from kernels.includes import ALLOWED_HEADERS, check_includes


@pytest.mark.parametrize("header", sorted(ALLOWED_HEADERS))
def test_allowed_headers_pass(header):
    assert check_includes(f"#include <{header}>\n") == []
    assert check_includes(f'  #  include "{header}"  // why\n') == []


@pytest.mark.parametrize("source, line", [
    ('#include "/etc/passwd"\n', 1),
    ("int x;\n#include <stdlib.h>\n", 2),
    ("#inc\\\nlude <stdlib.h>\n", 1),          # line splice
    ("%:include <stdlib.h>\n", 1),              # digraph
    ("??=include <stdlib.h>\n", 1),             # trigraph
    ('#define F "/etc/passwd"\n#include F\n', 2),   # computed include
    ("#include_next <cuda_fp16.h>\n", 1),
    ("#import <cuda_fp16.h>\n", 1),
    ("/* c */ #include <stdlib.h>\n", 1),
    ("#include <cuda_fp16.h> <x.h>\n", 1),
    ("#include <../include/cuda_fp16.h>\n", 1),
])
def test_forbidden_includes_are_found(source, line):
    violations = check_includes(source)
    assert [v.line for v in violations] == [line]


@pytest.mark.parametrize("source", [
    "// #include <stdio.h>\n",
    "/* #include <stdio.h>\n   #include <stdlib.h> */\n",
    'const char* s = "#include <stdio.h>";\n',
    "int include = 3;\n",
])
def test_not_an_include(source):
    assert check_includes(source) == []


def test_message_never_echoes_a_full_path():
    (violation,) = check_includes('#include "/home/secret/dir/key.pem"\n')
    assert "/home/secret" not in violation.message
    assert "key.pem" in violation.message
