"""In a real browser: sign up, log out, log in (and a wrong password is refused)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from tests.web.browser import screenshot
from tests.web.conftest import wait_for

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a long pass phrase 42"


def signed_in_as(driver: WebDriver) -> str | None:
    from selenium.webdriver.common.by import By

    found = driver.find_elements(By.CSS_SELECTOR, ".account-nav strong")
    return found[0].text if found else None


def test_sign_up_log_out_and_log_in(open_page: Callable[[str], WebDriver]) -> None:
    from selenium.webdriver.common.by import By

    driver = open_page("/")
    driver.find_element(By.LINK_TEXT, "Sign up").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "id_username"))
    driver.find_element(By.ID, "id_username").send_keys("ann")
    driver.find_element(By.ID, "id_password1").send_keys(PASSWORD)
    driver.find_element(By.ID, "id_password2").send_keys(PASSWORD)
    screenshot(driver, "sign-up")
    driver.find_element(By.CSS_SELECTOR, "main button[type=submit]").click()
    wait_for(driver, lambda d: signed_in_as(d) == "ann")
    assert "Your account is ready" in driver.find_element(By.CSS_SELECTOR, ".messages").text

    driver.find_element(By.XPATH, "//button[normalize-space()='Log out']").click()
    wait_for(driver, lambda d: d.find_elements(By.LINK_TEXT, "Log in"))
    assert signed_in_as(driver) is None

    driver.find_element(By.LINK_TEXT, "Log in").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "id_username"))
    driver.find_element(By.ID, "id_username").send_keys("ann")
    driver.find_element(By.ID, "id_password").send_keys("not the password")
    driver.find_element(By.CSS_SELECTOR, "main button[type=submit]").click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".errorlist"))
    errors = driver.find_element(By.CSS_SELECTOR, ".errorlist").text
    assert "correct username and password" in errors
    assert signed_in_as(driver) is None

    driver.find_element(By.ID, "id_password").send_keys(PASSWORD)
    screenshot(driver, "log-in")
    driver.find_element(By.CSS_SELECTOR, "main button[type=submit]").click()
    wait_for(driver, lambda d: signed_in_as(d) == "ann")


def test_a_refused_sign_up_says_why(open_page: Callable[[str], WebDriver]) -> None:
    from selenium.webdriver.common.by import By

    driver = open_page("/accounts/signup/")
    driver.find_element(By.ID, "id_username").send_keys("bob")
    driver.find_element(By.ID, "id_password1").send_keys(PASSWORD)
    driver.find_element(By.ID, "id_password2").send_keys(PASSWORD + "x")
    driver.find_element(By.CSS_SELECTOR, "main button[type=submit]").click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".errorlist"))
    assert "match" in driver.find_element(By.CSS_SELECTOR, ".errorlist").text
    assert signed_in_as(driver) is None
