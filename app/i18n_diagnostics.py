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
    "js.msg.launch_timeout": "커널 실행이 {seconds}초 안에 끝나지 않았습니다",
    "js.msg.cpu_limit": "CPU 시간 한도에 닿았습니다",
    "js.msg.emu_budget": "이 제출의 실행이 에뮬레이터가 컴파일과 모든 테스트 실행에 주는 {seconds}초 예산을 넘었습니다",
    "js.msg.memory_limit": "메모리 한도 초과: 작업이 {megabytes} MB를 넘었습니다",
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
    "js.msg.launch_timeout": "the launches did not finish within {seconds} s",
    "js.msg.cpu_limit": "the CPU time limit was reached",
    "js.msg.emu_budget": "the submission's runs passed the emulator's {seconds} s budget for compiling and running "
                         "all its cases",
    "js.msg.memory_limit": "memory limit exceeded: the job ran past its {megabytes} MB",
}
