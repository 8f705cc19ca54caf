"""Interface strings of the account pages (issue #25): changing and resetting a
password, invite-only and closed sign-up. Korean and English, one key each;
merged into `app.i18n_strings.STRINGS` (the same tests check both tables)."""

from __future__ import annotations

ACCOUNTS_KO: dict[str, str] = {
    "auth.password_title": "비밀번호 바꾸기",
    "auth.current_password": "지금 비밀번호",
    "auth.new_password": "새 비밀번호",
    "auth.new_password_again": "새 비밀번호 확인",
    "auth.submit_password": "비밀번호 바꾸기",
    "auth.password_changed": "비밀번호를 바꿨습니다. 다른 기기와 브라우저에서는 로그아웃되었습니다.",
    "auth.password_sessions_note": "비밀번호를 바꾸면 이 브라우저만 로그인된 채로 남고, 다른 곳의 로그인은 모두 끝납니다.",
    "auth.reset_title": "새 비밀번호 정하기",
    "auth.submit_reset": "비밀번호 저장",
    "auth.reset_sessions_note": "저장하면 이 계정의 모든 로그인이 끝납니다. 새 비밀번호로 다시 로그인하세요.",
    "auth.notice.password_reset": "새 비밀번호를 저장했습니다. 이제 로그인하세요.",
    "auth.forgot_note": "비밀번호를 잊으셨나요? 이 사이트의 관리자에게 비밀번호 재설정 링크를 받으세요 (메일로는 보내지 않습니다).",
    "auth.change_password": "비밀번호 바꾸기",
    "auth.signup_closed": "이 사이트는 지금 새 가입을 받지 않습니다. 계정이 필요하면 사이트 관리자에게 문의하세요.",
    "auth.invite_needed": "이 사이트는 초대받은 사람만 가입할 수 있습니다. 관리자에게 받은 초대 코드를 입력하세요.",
    "auth.invite_code": "초대 코드",
    "error.signup_closed": "이 사이트는 지금 새 가입을 받지 않습니다.",
    "error.invite_invalid": "초대 코드가 맞지 않습니다 (잘못 입력했거나, 다 썼거나, 기한이 지났거나, 취소된 코드입니다).",
    "error.password_mismatch": "새 비밀번호 두 칸이 서로 다릅니다.",
    "error.password_wrong": "지금 비밀번호가 맞지 않습니다.",
    "error.reset_invalid": "이 비밀번호 재설정 링크는 더 쓸 수 없습니다 (이미 썼거나, 기한이 지났거나, 새 링크로 바뀌었습니다). 관리자에게 새 링크를 받으세요.",
}

ACCOUNTS_EN: dict[str, str] = {
    "auth.password_title": "Change your password",
    "auth.current_password": "Current password",
    "auth.new_password": "New password",
    "auth.new_password_again": "New password again",
    "auth.submit_password": "Change password",
    "auth.password_changed": "Your password is changed. You are signed out on your other devices and browsers.",
    "auth.password_sessions_note": "Changing your password keeps this browser signed in and signs you out everywhere else.",
    "auth.reset_title": "Choose a new password",
    "auth.submit_reset": "Save the password",
    "auth.reset_sessions_note": "Saving it signs this account out everywhere; then sign in with the new password.",
    "auth.notice.password_reset": "Your new password is saved. Sign in now.",
    "auth.forgot_note": "Forgot your password? Ask this site's admin for a password-reset link (none is sent by e-mail).",
    "auth.change_password": "Change password",
    "auth.signup_closed": "This site is not taking new sign-ups now. Ask its admin if you need an account.",
    "auth.invite_needed": "Sign-up on this site is by invitation. Enter the invite code an admin gave you.",
    "auth.invite_code": "Invite code",
    "error.signup_closed": "This site is not taking new sign-ups now.",
    "error.invite_invalid": "This invite code is not valid (mistyped, used up, expired or revoked).",
    "error.password_mismatch": "The two new passwords differ.",
    "error.password_wrong": "The current password is wrong.",
    "error.reset_invalid": "This password-reset link cannot be used any more (used, expired or replaced by a newer one). Ask an admin for a new link.",
}
