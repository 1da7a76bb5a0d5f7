"""The App screen's tabs (Style, Sidebar, Main, Preview, Extensions, SMS, Webhooks) and the modals they open."""
