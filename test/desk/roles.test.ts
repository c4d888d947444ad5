import { describe, expect, it } from "vitest";
import { isPressable, obviousAction, plainRole } from "../../src/desk/roles.js";

describe("plainRole", () => {
  it("names the common roles in plain words", () => {
    const expected: Record<string, string> = {
      AXButton: "button",
      AXTextField: "text field",
      AXStaticText: "text",
      AXTextArea: "text area",
      AXCheckBox: "checkbox",
      AXRadioButton: "radio button",
      AXPopUpButton: "pop-up button",
      AXMenuItem: "menu item",
      AXMenuBar: "menu bar",
      AXMenuBarItem: "menu bar item",
      AXMenu: "menu",
      AXWindow: "window",
      AXGroup: "group",
      AXScrollArea: "scroll area",
      AXTable: "table",
      AXRow: "row",
      AXCell: "cell",
      AXImage: "image",
      AXLink: "link",
      AXSlider: "slider",
      AXTabGroup: "tab group",
      AXToolbar: "toolbar",
      AXList: "list",
      AXComboBox: "combo box",
      AXToggleButton: "toggle button",
      AXIncrementor: "stepper",
      AXWebArea: "web area",
    };
    for (const [role, words] of Object.entries(expected)) expect(plainRole(role), role).toBe(words);
  });

  it("splits unknown roles into lower-case words", () => {
    expect(plainRole("AXFooBar")).toBe("foo bar");
    expect(plainRole("AXHTMLContent")).toBe("html content");
    expect(plainRole("AXRatingIndicator2")).toBe("rating indicator2");
    expect(plainRole("customWidget")).toBe("custom widget");
    expect(plainRole("")).toBe("element");
    expect(plainRole("AX")).toBe("element");
  });

  it("prefers a subrole that names the element better", () => {
    expect(plainRole("AXRadioButton", "AXTabButton")).toBe("tab");
    expect(plainRole("AXTextField", "AXSearchField")).toBe("search field");
    expect(plainRole("AXTextField", "AXSecureTextField")).toBe("secure text field");
    expect(plainRole("AXButton", "AXCloseButton")).toBe("close button");
    expect(plainRole("AXCheckBox", "AXSwitch")).toBe("switch");
    expect(plainRole("AXButton", "AXSomethingNew")).toBe("button");
  });
});

describe("isPressable / obviousAction", () => {
  it("treats button-like roles as pressed by a plain click", () => {
    for (const role of ["AXButton", "AXCheckBox", "AXRadioButton", "AXLink", "AXMenuItem", "AXMenuBarItem", "AXToggleButton", "AXPopUpButton", "AXTab", "AXDisclosureTriangle"]) {
      expect(isPressable(role), role).toBe(true);
      expect(obviousAction(role), role).toBe("AXPress");
    }
  });

  it("does not for containers, text and value controls", () => {
    for (const role of ["AXGroup", "AXWindow", "AXStaticText", "AXTextField", "AXSlider", "AXCell", "AXRow", "AXFooBar"]) {
      expect(isPressable(role), role).toBe(false);
      expect(obviousAction(role), role).toBeUndefined();
    }
  });
});
