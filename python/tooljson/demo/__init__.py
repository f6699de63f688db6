"""What ``python -m tooljson demo`` (and ``watch``, ``record``, ``web``) runs: the stand-in's scenarios
played into the views.

The layer above :mod:`tooljson.ui` and :mod:`tooljson.standin`: it imports both, and neither imports
it. :mod:`tooljson.demo.runs` plays a scenario through the tool loop (against the stand-in or the
real Messages API) or through another API's own client, and offers the scenarios to the browser
view; :mod:`tooljson.demo.sdk_runner` runs the anthropic SDK's tool runner on an accelerated client;
:mod:`tooljson.demo.openai_helper` shows the openai SDK's stream helpers on an accelerated client.
"""
