"""The judge's diagnostics and faults in both languages (#28): the emulator's
races, barriers, warp masks, out-of-bounds and uninitialised reads, faults and
limits, by message code (kernels/emu/messages.py, kernels.contract.MESSAGE_CODES).
Merged into `app.i18n_strings.STRINGS` like app/i18n_messages.py.

The page script (static/js/results.js) fills the parts a sentence shares before
it formats one: `where_text` (a region: `js.msg.region.*`), `at` (an element or a
byte offset), `who`/`other_who` (a thread of a block), `at_line`/`other_at_line`
(`js.line`, or an unknown line), `access_text`, `access_verb`, `other_access_past`
and `scope_text`. Identifiers (`__syncthreads()`, `extern __shared__`, an
intrinsic's name in `op`) stay as the learner writes them.
"""

from __future__ import annotations

DIAG_KO: dict[str, str] = {
    "js.msg.region.buffer": "버퍼 '{name}'",
    "js.msg.region.shared": "공유 메모리 배열 '{name}'",
    "js.msg.region.dynamic_shared": "동적 공유 메모리(extern __shared__)",
    "js.msg.region.static_shared": "정적 공유 메모리(에뮬레이터가 이름을 알 수 없는 형태로 선언된 __shared__ 변수)",
    "js.msg.at_element": " 원소 {index}",
    "js.msg.at_offset": " 바이트 오프셋 {offset}",
    "js.msg.who": "블록 {block}의 스레드 {thread}",
    "js.msg.unknown_line": "알 수 없는 줄",
    "js.msg.access.read": "읽기",
    "js.msg.access.write": "쓰기",
    "js.msg.access.atomic": "원자적 접근",
    "js.msg.access.access": "접근",
    "js.msg.verb.read": "읽는",
    "js.msg.verb.write": "쓰는",
    "js.msg.verb_past.read": "읽었습니다",
    "js.msg.verb_past.write": "썼습니다",
    "js.msg.race_scope.block": "그 사이에 __syncthreads()/__syncwarp()가 없습니다: 배리어가 빠졌습니다",
    "js.msg.race_scope.grid": "한 번의 실행 안에서 서로 다른 블록의 순서는 정해지지 않습니다: 원자적 연산을 쓰세요",
    "js.msg.race": "{where_text}{at}에서 데이터 경쟁: {who}이(가) 값을 {access_verb} 동안({at_line}) "
                   "{other_who}이(가) 값을 {other_access_past}({other_at_line}). {scope_text}",
    "js.msg.race_order": "스레드를 거꾸로 된 순서로 실행하면 결과가 바뀝니다. __syncthreads()나 __syncwarp()가 "
                         "빠졌을 수 있습니다: {mismatch}",
    "js.msg.uninitialised_read": "블록의 어느 스레드도 쓰기 전에 {where_text}의 바이트 오프셋 {offset}을(를) "
                                 "읽었습니다. 공유 메모리는 쓰레기 값으로 시작합니다 ({who}, {at_line})",
    "js.msg.out_of_bounds": "범위 밖 {access_text} ({bytes}바이트): {where_text}의 원소 {index}, 유효한 원소는 "
                            "0..{last}입니다 ({who}, {at_line})",
    "js.msg.out_of_bounds_dynamic": "범위 밖 {access_text} ({bytes}바이트): 동적 공유 메모리(extern __shared__)의 "
                                    "바이트 오프셋 {offset}. 실행 설정이 준 크기는 {size_bytes}바이트입니다 "
                                    "({who}, {at_line})",
    "js.msg.out_of_bounds_far": "범위 밖 {access_text}: 버퍼 '{name}'의 원소 {index}, 유효한 원소는 0..{last}입니다 "
                                "({at_line}). 버퍼에서 한참 벗어나 커널의 것이 아닌 메모리입니다 (세그멘테이션 오류)",
    "js.msg.divergent_barrier": "{line}번째 줄의 __syncthreads()를 블록의 일부 스레드가 건너뜁니다: 블록 {block}의 "
                                "스레드 {thread}이(가) 거기에 닿지 않고 끝났습니다 (스레드 {total}개 중 {done}개가 "
                                "닿았습니다)",
    "js.msg.divergent_barrier_places": "서로 다른 곳의 __syncthreads()에 닿았습니다: {line}번째 줄과 {other_line}번째 "
                                       "줄 (블록 {block}의 스레드 {thread}). 블록의 모든 스레드는 같은 "
                                       "__syncthreads()에 닿아야 합니다",
    "js.msg.shuffle_source": "워프 {warp}의 레인 {lane}이(가) {op}(으)로 레인 {source}을(를) 읽지만 마스크 {mask}에 "
                             "그 레인이 없습니다: 받는 값은 정의되지 않습니다",
    "js.msg.shuffle_source_gone": "워프 {warp}의 레인 {lane}이(가) {op}(으)로 레인 {source}을(를) 읽지만 그 레인은 "
                                  "이미 끝났습니다: 받는 값은 정의되지 않습니다",
    "js.msg.warp_mask": "{line}번째 줄의 {op}이(가) 마스크 {mask}로 끝내 오지 않는 레인을 부릅니다: 워프 {warp}의 "
                        "레인 {lane}이(가) 거기에 닿지 않고 끝났습니다 (모두 {count}개 레인)",
    "js.msg.deadlock_barrier": "{line}번째 줄의 {op}(마스크 {mask})이(가) 워프 {warp}의 레인 {lane}을(를) 기다리는데, "
                               "그 레인은 {other_line}번째 줄의 __syncthreads()에서 기다립니다: 어느 쪽도 나아갈 수 "
                               "없습니다",
    "js.msg.deadlock": "블록의 모든 스레드가 기다리고 있어 어느 스레드도 나아갈 수 없습니다",
    "js.msg.segfault": "세그멘테이션 오류 ({at_line}): 주소 {address}의 {access_text}. 어느 버퍼의 메모리도 아닙니다 "
                       "(널 포인터나 초기화되지 않은 포인터, 또는 범위를 한참 벗어난 접근)",
    "js.msg.segfault_unplaced": "세그멘테이션 오류: 커널이 자기 것이 아닌 메모리를 읽거나 썼습니다 (범위를 한참 "
                                "벗어난 접근, 널 포인터, 또는 스레드 스택 넘침)",
    "js.msg.stack_overflow": "스레드의 스택이 넘쳤습니다 ({at_line}): 깊은 재귀나 큰 지역 배열 때문입니다 "
                             "(에뮬레이터의 스레드마다 {stack_kib} KiB)",
    "js.msg.misaligned_wild": "정렬되지 않았거나 잘못된 {access_text} ({at_line}): 크기의 배수가 아닌 주소에서 벡터를 "
                              "읽거나 썼습니다 (예: 4의 배수가 아닌 인덱스의 float4). 아니면 엉뚱한 포인터입니다",
    "js.msg.triton_out_of_bounds": "범위 밖 {access_text}: 버퍼 '{name}'의 원소 {index}, 유효한 원소는 0..{last}입니다 "
                                   "(프로그램 {program}, {at_line}). 버퍼 뒤의 보호 구역입니다: 마스크가 빠졌거나 "
                                   "틀렸습니다",
    "js.msg.triton_out_of_bounds_far": "범위 밖 {access_text}: 버퍼 '{name}'의 원소 {index}, 유효한 원소는 "
                                       "0..{last}입니다 (프로그램 {program}, {at_line}). 어느 버퍼에도 속하지 않는 "
                                       "주소라 접근하지 않고 실행을 멈췄습니다 (그래픽 처리 장치에서는 잘못된 주소 오류)",
    "js.msg.triton_race": "버퍼 '{name}'의 원소 {index}에서 데이터 경쟁: 프로그램 {program}의 {access_text}({at_line})와 "
                          "같은 실행 안 다른 프로그램 {other_program}의 {other_access_text}이(가) 겹칩니다. 한 실행의 "
                          "프로그램들은 정해진 순서 없이 돌아갑니다: 원자적 연산을 쓰거나 프로그램마다 다른 원소를 맡기세요",
    "js.msg.triton_uninitialised_read": "프로그램 {program}이(가) 출력 '{name}'의 원소 {index}을(를) 어느 프로그램도 "
                                        "쓰기 전에 읽었습니다 ({at_line}). 출력은 쓰레기 값으로 시작합니다",
    "js.msg.triton_error": "{name} ({at_line}): {detail}",
    "js.msg.misaligned": "정렬되지 않은 {bytes}바이트 {access_text}: 주소 {address} ({at_line}). {bytes}바이트 접근은 "
                         "{bytes}의 배수인 주소에서 해야 합니다 (예: 4의 배수가 아닌 인덱스의 float4)",
    "js.msg.launch_timeout": "커널 실행이 {seconds}초 안에 끝나지 않았습니다",
    "js.msg.cpu_limit": "CPU 시간 한도에 닿았습니다",
    "js.msg.emu_budget": "이 제출의 실행이 에뮬레이터가 컴파일과 모든 테스트 실행에 주는 {seconds}초 예산을 넘었습니다",
    "js.msg.memory_limit": "메모리 한도 초과: 작업이 {megabytes} MB를 넘었습니다",
    # the rarer runtime sentences (#28): warnings, warp collectives, traps, launches, crashes
    "js.msg.atomic_read_race": "{who}이(가) {where_text}을(를) 읽는 동안({at_line}) {other_who}이(가) 그 값을 원자적으로 "
                               "갱신합니다({other_at_line}). 그 사이에 배리어가 없어 읽은 값은 갱신 전일 수도 후일 수도 "
                               "있습니다 (경고입니다: atomicCAS 루프는 이렇게 시작합니다. 모든 갱신이 끝나기 전에 합계를 "
                               "읽으면 결과에서 틀린 것이 드러납니다)",
    "js.msg.benign_race": "{where_text}{at}에서 데이터 경쟁: {who}이(가) 값을 쓰는 동안({at_line}) {other_who}도 "
                          "값을 썼습니다({other_at_line}). 모든 스레드가 같은 값을 써서 결과는 바뀌지 않습니다 "
                          "(경고입니다. 쓰는 스레드는 하나면 충분합니다)",
    "js.msg.warp_lanes_apart": "워프 {warp}의 레인 {lane}은(는) {op}({line}번째 줄)에 있고 레인 {other_lane}은(는) "
                               "{other_op}({other_line}번째 줄)에 있습니다. 마스크에 든 레인은 모두 같은 워프 함수를 "
                               "불러야 합니다",
    "js.msg.warp_masks_disagree": "워프 {warp}의 레인들이 {op}의 마스크를 다르게 넘깁니다: 레인 {lane}은(는) {mask}"
                                  "({line}번째 줄), 레인 {other_lane}은(는) {other_mask}({other_line}번째 줄)",
    "js.msg.warp_mask_elsewhere": "{line}번째 줄의 {op}(마스크 {mask})이(가) 기다리는 레인들이 다른 워프 함수에 가 "
                                  "있습니다",
    "js.msg.warp_mask_self": "레인 {lane}이(가) {op}을(를) 마스크 {mask}로 불렀는데, 마스크에 자기 레인이 없습니다",
    "js.msg.shuffle_width": "{op}: 폭 {width}은(는) 32 이하인 2의 거듭제곱이어야 합니다",
    "js.msg.trap": "{who}이(가) __trap()을 호출했습니다 ({at_line})",
    "js.msg.assert_failed": "디바이스 코드의 assert가 실패했습니다: {expression} ({who}, {at_line})",
    "js.msg.launch_bounds": "블록당 스레드가 {threads}개인 런치입니다. 커널의 __launch_bounds__({bound})보다 많아 "
                            "GPU는 런치를 거부합니다 ({who}, {at_line})",
    "js.msg.grid_sync": "this_grid().sync()는 협력 런치(cudaLaunchCooperativeKernel)에서만 쓸 수 있습니다. 채점기는 "
                        "커널을 보통 방식으로 런치하므로 그리드 전체의 배리어는 동작하지 않습니다: 커널을 두 번의 "
                        "런치로 나누거나 원자적 연산을 쓰세요 ({who}, {at_line})",
    "js.msg.tile_size": "tiled_partition(그룹, n): 에뮬레이터가 지원하는 n은 1, 2, 4, 8, 16, 32입니다 ({who})",
    "js.msg.launch_dims_zero": "{kernel}: 그리드와 블록의 각 차원은 1 이상이어야 합니다",
    "js.msg.launch_threads": "{kernel}: 블록 하나의 스레드가 {threads}개입니다. 최대 1024개입니다",
    "js.msg.launch_block_dims": "{kernel}: 블록 차원이 (1024, 1024, 64)를 넘습니다",
    "js.msg.launch_grid_dims": "{kernel}: 그리드 차원이 (2^31-1, 65535, 65535)를 넘습니다",
    "js.msg.launch_shared": "{kernel}: 동적 공유 메모리 {bytes}바이트는 블록 하나가 쓸 수 있는 227 KB를 넘습니다",
    "js.msg.launch_args": "{kernel}: 런치에 넘기는 인자 수가 커널의 매개변수 수와 다릅니다",
    "js.msg.emu_no_memory": "에뮬레이터가 메모리를 할당하지 못했습니다",
    "js.msg.emu_no_memory_stack": "에뮬레이터가 스레드 스택을 할당하지 못했습니다",
    "js.msg.emu_no_memory_shared": "에뮬레이터가 공유 메모리를 할당하지 못했습니다",
    "js.msg.check_crash": "스레드를 거꾸로 된 순서로 다시 실행한 검사 빌드가 중단되었습니다: {name}",
    "js.msg.forbidden_syscall": "커널이 쓸 수 없는 시스템 호출을 했습니다: 파일, 프로세스, 소켓, 시그널을 쓸 수 없고 "
                                "종료 상태는 127 이하여야 합니다",
    "js.msg.division_by_zero": "정수를 0으로 나눴습니다",
    "js.msg.aborted": "프로그램이 스스로 중단되었습니다",
    "js.msg.killed_by_signal": "프로그램이 시그널 {signal}로 끝났습니다",
    "js.msg.exited": "프로그램이 예기치 않게 끝났습니다 (종료 상태 {status})",
    "js.msg.output_corrupted": "프로그램의 응답이 손상되었습니다: 커널이 자기 것이 아닌 메모리에 썼을 수 있습니다",
    "js.msg.cuda_error": "GPU가 CUDA 오류 {name}을(를) 보고했습니다: {detail}",
    "js.msg.shared_memory_limit": "{kernel}이(가) 정적 공유 메모리 {static_bytes}바이트에 더해 동적 공유 메모리(SMEM_BYTES) "
                                  "{bytes}바이트를 요청합니다. 이 GPU는 블록 하나에 최대 {limit_bytes}바이트를 줍니다",
    "js.msg.gpu_out_of_memory": "GPU 메모리가 모자랍니다: 커널이나 런치가 메모리를 너무 많이 요청했습니다",
    "js.msg.compile_budget": "이 제출에 주어진 {seconds}초 예산을 다 써서 컴파일을 시작하지 못했습니다",
    "js.msg.compile_memory": "컴파일러가 작업의 메모리 한도({megabytes} MB)를 넘었습니다",
    # our own compile diagnostics (#28); {detail} is the compiler's own text, shown as code
    "js.msg.source_too_large": "소스가 {kib} KiB보다 큽니다",
    "js.msg.source_nul": "소스에 NUL 바이트가 들어 있습니다",
    "js.msg.unexpected_character": "예상하지 못한 문자 {character}",
    "js.msg.emu_unsupported": "에뮬레이터가 지원하지 않는 문법입니다: {what}",
    "js.msg.emu_compile_detail": "에뮬레이터가 컴파일하지 못했습니다. 컴파일러 메시지: {detail}",
    "js.msg.unknown_directive": "알 수 없는 전처리 지시문 '#{directive}'",
    "js.msg.directive_forbidden": "#{directive} 지시문은 쓸 수 없습니다",
    "js.msg.directive_form": "#{directive}는 쓸 수 없습니다. 허용된 헤더를 `#include <헤더>` 꼴로 포함하는 것만 됩니다",
    "js.msg.pragma_forbidden": "#pragma {pragma}는 쓸 수 없습니다 (#pragma unroll과 #pragma once만 쓸 수 있습니다)",
    "js.msg.include_literal": "#include에는 헤더 이름을 그대로 적어야 합니다 (#include <cuda_fp16.h>)",
    "js.msg.include_forbidden": "'{header}'은(는) #include할 수 없습니다. 허용된 헤더는 채점기 문서에 있습니다",
    "js.msg.include_path": "경로('…/{header}')는 #include할 수 없습니다. 허용된 헤더는 채점기 문서에 있습니다",
    "js.msg.identifier_forbidden": "커널에서는 {identifier}을(를) 쓸 수 없습니다",
    "js.msg.extern_forbidden": "extern은 extern \"C\"와 extern __shared__ 선언에만 쓸 수 있습니다",
    "js.msg.operator_forbidden": "커널에서 operator {operator}를 정의할 수 없습니다",
    "js.msg.attribute_forbidden": "커널에서는 속성 '{attribute}'을(를) 쓸 수 없습니다",
    "js.msg.braces_close": "중괄호 짝이 맞지 않습니다: 여는 중괄호 없이 닫는 중괄호가 나옵니다",
    "js.msg.braces_open": "중괄호 짝이 맞지 않습니다: 닫히지 않은 중괄호가 있습니다",
    "js.msg.extern_shared_type": "extern __shared__ 선언에는 원소 타입이 있어야 합니다",
    "js.msg.preprocessed_too_large": "매크로를 펼친 커널이 {megabytes} MB보다 큽니다. 매크로 전개를 줄여 다시 쓰세요",
    "js.msg.constant_literal": "{name}은(는) 정수 리터럴 하나여야 합니다 ({choices} 중 하나)",
    "js.msg.constant_choice": "{name} = {value}은(는) 쓸 수 없습니다. {choices} 중에서 고르세요",
    "js.msg.kernel_missing": "커널 '{kernel}'이(가) 정의되어 있지 않습니다. 이 선언으로 정의하세요: {declaration}",
    "js.msg.signature_mismatch": "'{kernel}'은(는) 정확히 다음과 같이 선언해야 합니다: {declaration}",
    "js.msg.signature_macro": "`#define {macro}`가 채점기가 덧붙이는 선언을 바꿉니다. 이름을 바꾸세요. 선언: {declaration}",
    "js.msg.header_error": "CUDA 헤더 '{header}'에서 오류: {detail}",
    "js.msg.launcher_error": "연습의 커널을 런치할 수 없습니다. 컴파일러 메시지: {detail}",
    "js.msg.compiler_limit": "컴파일러가 한도({limits})를 넘었습니다",
    "js.msg.object_refused": "컴파일된 커널의 오브젝트 파일이 C++ 컴파일러가 만드는 형태가 아니어서 거부했습니다",
    "js.msg.object_too_large": "컴파일된 커널이 너무 커서 정해진 한도 안에 검사할 수 없습니다",
    "js.msg.unchecked_function": "커널의 함수 '{function}'이(가) 메모리 검사 없이 빌드되었습니다: 커널은 검사를 끌 수 "
                                 "없습니다 (no_sanitize 등)",
    "js.msg.object_section": "커널이 자기만의 섹션 '{section}'에 코드나 데이터를 두었습니다 (생성자·소멸자 포함): "
                             "커널은 그럴 수 없습니다",
    "js.msg.object_symbol": "커널이 자기 코드 바깥의 이름 '{symbol}'을(를) 정의합니다 (extern \"C\", 다른 "
                            "네임스페이스, 라이브러리 함수 이름 등): 커널은 자기 함수와 변수만 정의할 수 있습니다",
    "js.msg.static_shared": "커널이 정적 공유 메모리를 {bytes}바이트 선언합니다. GPU가 허용하는 {max_bytes}바이트"
                            "(48 KB)보다 많습니다: 더 필요하면 동적 공유 메모리(extern __shared__)를 쓰세요",
    "js.msg.static_shared_function": "'{function}'이(가) 쓰는 정적 공유 메모리가 모두 {bytes}바이트입니다. GPU처럼 "
                                     "{max_bytes}바이트까지만 쓸 수 있습니다: 더 필요하면 동적 공유 메모리"
                                     "(extern __shared__)를 쓰세요",
}

DIAG_EN: dict[str, str] = {
    "js.msg.region.buffer": "buffer '{name}'",
    "js.msg.region.shared": "shared memory array '{name}'",
    "js.msg.region.dynamic_shared": "dynamic shared memory (extern __shared__)",
    "js.msg.region.static_shared": "static shared memory (a __shared__ variable declared in a form the emulator "
                                   "cannot name)",
    "js.msg.at_element": " element {index}",
    "js.msg.at_offset": " at byte offset {offset}",
    "js.msg.who": "thread {thread} of block {block}",
    "js.msg.unknown_line": "an unknown line",
    "js.msg.access.read": "read",
    "js.msg.access.write": "write",
    "js.msg.access.atomic": "atomic access",
    "js.msg.access.access": "access",
    "js.msg.verb.read": "reads",
    "js.msg.verb.write": "writes",
    "js.msg.verb_past.read": "read",
    "js.msg.verb_past.write": "wrote",
    "js.msg.race_scope.block": "with no __syncthreads()/__syncwarp() in between: a missing barrier",
    "js.msg.race_scope.grid": "different blocks are never ordered inside a launch: use an atomic",
    "js.msg.race": "data race on {where_text}{at}: {who} {access_verb} it ({at_line}) while {other_who} "
                   "{other_access_past} it ({other_at_line}); {scope_text}",
    "js.msg.race_order": "the result changes when the threads run in reverse order, a probable missing "
                         "__syncthreads() or __syncwarp(): {mismatch}",
    "js.msg.uninitialised_read": "read of {where_text} at byte offset {offset} before any thread of the block wrote "
                                 "it: shared memory starts as garbage ({who}, {at_line})",
    "js.msg.out_of_bounds": "out-of-bounds {access_text} of {bytes} bytes: {where_text} at element {index}, valid "
                            "elements are 0..{last} ({who}, {at_line})",
    "js.msg.out_of_bounds_dynamic": "out-of-bounds {access_text} of {bytes} bytes: dynamic shared memory (extern "
                                    "__shared__) at byte offset {offset}, but the launch gives it {size_bytes} bytes "
                                    "({who}, {at_line})",
    "js.msg.out_of_bounds_far": "out-of-bounds {access_text}: buffer '{name}' at element {index}, valid elements are "
                                "0..{last} ({at_line}): far past the buffer, in memory the kernel does not own "
                                "(segmentation fault)",
    "js.msg.divergent_barrier": "__syncthreads() on line {line} is skipped by some threads of the block: thread "
                                "{thread} of block {block} finished without reaching it ({done} of {total} threads "
                                "did)",
    "js.msg.divergent_barrier_places": "__syncthreads() reached from different places: line {line} and line "
                                       "{other_line} (thread {thread} of block {block}); every thread of a block must "
                                       "reach the same __syncthreads()",
    "js.msg.shuffle_source": "lane {lane} of warp {warp} reads lane {source} with {op}, but mask {mask} does not "
                             "name that lane: the value it gets is undefined",
    "js.msg.shuffle_source_gone": "lane {lane} of warp {warp} reads lane {source} with {op}, which has already "
                                  "finished: the value it gets is undefined",
    "js.msg.warp_mask": "{op} on line {line} names lanes (mask {mask}) that never arrive: lane {lane} of warp {warp} "
                        "finished without reaching it ({count} lanes in all)",
    "js.msg.deadlock_barrier": "{op} on line {line} (mask {mask}) waits for lane {lane} of warp {warp}, which waits "
                               "at __syncthreads() on line {other_line}: neither can proceed",
    "js.msg.deadlock": "every thread of the block is waiting and none can proceed",
    "js.msg.segfault": "segmentation fault ({at_line}): a {access_text} of address {address}, which is no buffer's "
                       "memory (a null or uninitialised pointer, or far out of bounds)",
    "js.msg.segfault_unplaced": "segmentation fault: a kernel read or wrote memory it does not own (far out of "
                                "bounds, a null pointer, or a thread's stack overflowing)",
    "js.msg.stack_overflow": "a thread overflowed its stack ({at_line}): deep recursion or large local arrays (each "
                             "emulated thread has {stack_kib} KiB)",
    "js.msg.misaligned_wild": "misaligned or invalid {access_text} ({at_line}): a vector load or store at an address "
                              "that is not a multiple of its size (e.g. a float4 at an index not a multiple of 4), or "
                              "a wild pointer",
    "js.msg.triton_out_of_bounds": "out-of-bounds {access_text} of buffer '{name}' at element {index}, valid elements "
                                   "are 0..{last}, by program {program} ({at_line}): in the judge's guard band past the "
                                   "buffer (a missing or wrong mask)",
    "js.msg.triton_out_of_bounds_far": "out-of-bounds {access_text} of buffer '{name}' at element {index}, valid "
                                       "elements are 0..{last}, by program {program} ({at_line}): far outside every "
                                       "buffer: the access was not made and the launch stopped (on a GPU: an illegal "
                                       "address)",
    "js.msg.triton_race": "data race on buffer '{name}' element {index}: program {program} makes a {access_text} "
                          "({at_line}) of an element another program {other_program} made a {other_access_text} of in the same "
                          "launch; programs of a launch run in no fixed order: use an atomic, or give each program its "
                          "own elements",
    "js.msg.triton_uninitialised_read": "program {program} reads output '{name}' element {index} ({at_line}) before "
                                        "any program wrote it: outputs start as garbage",
    "js.msg.triton_error": "{name} ({at_line}): {detail}",
    "js.msg.misaligned": "misaligned {bytes}-byte {access_text} at address {address} ({at_line}): a {bytes}-byte "
                         "access needs an address that is a multiple of {bytes}",
    "js.msg.launch_timeout": "the launches did not finish within {seconds} s",
    "js.msg.cpu_limit": "the CPU time limit was reached",
    "js.msg.emu_budget": "the submission's runs passed the emulator's {seconds} s budget for compiling and running "
                         "all its cases",
    "js.msg.memory_limit": "memory limit exceeded: the job ran past its {megabytes} MB",
    "js.msg.atomic_read_race": "{who} reads {where_text} ({at_line}) while {other_who} updates it atomically "
                               "({other_at_line}) with no barrier in between: the read sees the value before or after "
                               "the update (a warning: an atomicCAS loop starts so; a total read before every update "
                               "is done fails by its result)",
    "js.msg.benign_race": "data race on {where_text}{at}: {who} writes it ({at_line}) while {other_who} wrote it "
                          "({other_at_line}): every thread wrote the same value, so the result cannot change (a "
                          "warning; one writer would do)",
    "js.msg.warp_lanes_apart": "lane {lane} of warp {warp} is at {op} (line {line}) while lane {other_lane} is at "
                               "{other_op} (line {other_line}); every lane named in the mask must call the same one",
    "js.msg.warp_masks_disagree": "lanes of warp {warp} disagree on the mask of {op}: lane {lane} passes {mask} (line "
                                  "{line}), lane {other_lane} passes {other_mask} (line {other_line})",
    "js.msg.warp_mask_elsewhere": "{op} on line {line} (mask {mask}) waits for lanes that are at a different warp "
                                  "collective",
    "js.msg.warp_mask_self": "{op} called by lane {lane} with mask {mask}, which does not include that lane",
    "js.msg.shuffle_width": "{op}: width {width} must be a power of two no larger than 32",
    "js.msg.trap": "__trap() called in {who} ({at_line})",
    "js.msg.assert_failed": "device-side assert failed: {expression} ({who}, {at_line})",
    "js.msg.launch_bounds": "the launch has {threads} threads per block, more than the kernel's "
                            "__launch_bounds__({bound}) allows: a GPU refuses to launch it ({who}, {at_line})",
    "js.msg.grid_sync": "this_grid().sync() needs a cooperative launch (cudaLaunchCooperativeKernel); the judge "
                        "launches kernels normally, so a grid-wide barrier cannot work: split the kernel in two "
                        "launches or use atomics ({who}, {at_line})",
    "js.msg.tile_size": "tiled_partition(group, n): the emulator supports n = 1, 2, 4, 8, 16 or 32 ({who})",
    "js.msg.launch_dims_zero": "{kernel}: grid and block dimensions must be at least 1",
    "js.msg.launch_threads": "{kernel}: a block has {threads} threads; the maximum is 1024",
    "js.msg.launch_block_dims": "{kernel}: block dimensions exceed (1024, 1024, 64)",
    "js.msg.launch_grid_dims": "{kernel}: grid dimensions exceed (2^31-1, 65535, 65535)",
    "js.msg.launch_shared": "{kernel}: dynamic shared memory of {bytes} bytes exceeds the 227 KB a block may use",
    "js.msg.launch_args": "{kernel}: the launch passes a different number of arguments than the kernel takes",
    "js.msg.emu_no_memory": "the emulator could not allocate memory",
    "js.msg.emu_no_memory_stack": "the emulator could not allocate a thread stack",
    "js.msg.emu_no_memory_shared": "the emulator could not allocate shared memory",
    "js.msg.check_crash": "the checked re-run in reverse thread order crashed: {name}",
    "js.msg.forbidden_syscall": "the program made a system call kernels may not make: no files, processes, sockets or "
                                "signals, no exit status above 127",
    "js.msg.division_by_zero": "integer division by zero",
    "js.msg.aborted": "the program aborted",
    "js.msg.killed_by_signal": "the program was killed by signal {signal}",
    "js.msg.exited": "the program exited unexpectedly (status {status})",
    "js.msg.output_corrupted": "the program's answer was corrupted: the kernel may have written memory it does not own",
    "js.msg.cuda_error": "{name}: {detail}",
    "js.msg.shared_memory_limit": "{kernel} asks for {bytes} bytes of dynamic shared memory (SMEM_BYTES) on top of "
                                  "{static_bytes} bytes of static shared memory; this GPU gives one block at most "
                                  "{limit_bytes} bytes",
    "js.msg.gpu_out_of_memory": "the GPU ran out of memory: the kernel or its launches asked for too much",
    "js.msg.compile_budget": "the compile did not start: the submission's {seconds} s budget was spent",
    "js.msg.compile_memory": "the compiler ran past the job's memory limit ({megabytes} MB)",
    "js.msg.source_too_large": "the source is larger than {kib} KiB",
    "js.msg.source_nul": "the source contains a NUL byte",
    "js.msg.unexpected_character": "unexpected character {character}",
    "js.msg.emu_unsupported": "not supported by the emulator: {what}",
    "js.msg.emu_compile_detail": "not supported by the emulator: {detail}",
    "js.msg.unknown_directive": "unknown preprocessor directive '#{directive}'",
    "js.msg.directive_forbidden": "the #{directive} directive is not allowed",
    "js.msg.directive_form": "#{directive} is only allowed as `#include <header>` with an allowed header",
    "js.msg.pragma_forbidden": "#pragma {pragma} is not allowed (only #pragma unroll and #pragma once)",
    "js.msg.include_literal": "#include must name a header literally (#include <cuda_fp16.h>)",
    "js.msg.include_forbidden": "#include of '{header}' is not allowed; the judge's documentation lists the allowed "
                                "headers",
    "js.msg.include_path": "#include of a path ('…/{header}') is not allowed; the judge's documentation lists the "
                           "allowed headers",
    "js.msg.identifier_forbidden": "{identifier} is not allowed in kernels",
    "js.msg.extern_forbidden": "only extern \"C\" and extern __shared__ declarations are supported",
    "js.msg.operator_forbidden": "defining operator {operator} is not allowed in kernels",
    "js.msg.attribute_forbidden": "the attribute '{attribute}' is not allowed in kernels",
    "js.msg.braces_close": "unbalanced braces: a closing brace without a matching opening one",
    "js.msg.braces_open": "unbalanced braces: an opening brace is never closed",
    "js.msg.extern_shared_type": "extern __shared__ needs an element type",
    "js.msg.preprocessed_too_large": "the preprocessed kernel is larger than {megabytes} MB (macros expanded); write "
                                     "it with fewer expansions",
    "js.msg.constant_literal": "{name} must be a plain integer literal (one of {choices})",
    "js.msg.constant_choice": "{name} = {value} is not allowed; choose one of {choices}",
    "js.msg.kernel_missing": "kernel '{kernel}' is not defined; define it with this declaration: {declaration}",
    "js.msg.signature_mismatch": "'{kernel}' must be declared exactly as: {declaration}",
    "js.msg.signature_macro": "your `#define {macro}` changes the declaration the judge adds; rename it. The "
                              "declaration: {declaration}",
    "js.msg.header_error": "in CUDA header '{header}': {detail}",
    "js.msg.launcher_error": "the exercise's kernels could not be launched: {detail}",
    "js.msg.compiler_limit": "the compiler ran past its {limits}",
    "js.msg.object_refused": "the compiled kernel's object is not one a C++ compiler makes, so it was refused",
    "js.msg.object_too_large": "the compiled kernel is too large to check within its limits",
    "js.msg.unchecked_function": "the kernel's function '{function}' was built without the memory checks: kernels "
                                 "may not turn the checks off (no_sanitize and the like)",
    "js.msg.object_section": "the kernel places code or data in a section of its own ('{section}', constructors and "
                             "destructors included): kernels may not",
    "js.msg.object_symbol": "the kernel defines '{symbol}' outside its own code (extern \"C\", another namespace, a "
                            "library function's name or an ifunc): kernels may define only their own functions and "
                            "variables",
    "js.msg.static_shared": "the kernel declares {bytes} bytes of static shared memory, more than a GPU allows "
                            "({max_bytes} bytes, 48 KB): use dynamic shared memory (extern __shared__) for more",
    "js.msg.static_shared_function": "'{function}' uses too much shared data ({bytes} bytes of static shared memory in "
                                     "all, {max_bytes} max, as on a GPU): use dynamic shared memory (extern "
                                     "__shared__) for more",
}
